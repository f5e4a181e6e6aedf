import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import type { PointIndexer } from '../../../electron/local-service/catalog/index-worker';
import { answerPlan } from '../../../electron/local-service/http/compute-layers';
import { readModels } from '../../../electron/local-service/imagery/perception/models';
import { ClassVocabulary } from '../../../electron/local-service/imagery/perception/vocabulary';
import type { LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { parseQuery } from '../../../electron/local-service/query/parse';
import type { PhotoDetections, SeenPhoto } from '../../../electron/local-service/query/sources/detections';
import { createSlicer } from '../../../electron/local-service/uploads';
import { UploadSet } from '../../../electron/local-service/upload/set';

/** A plan about photos answered from a stand-in for the imagery catalog: which photos, and what the answer says of photos not looked at yet. */
const catalog = loadCatalog(defaultCatalogDir());
const classes = new ClassVocabulary(readModels().classes);
const AT = [4.84, 45.76];
const photo = (id: string, label: string, northM: number): SeenPhoto => ({
  id, key: id.length + northM, lon: AT[0]!, lat: AT[1]! + northM / 111_195, takenAt: '2024-05-01T10:00:00', bearing: 45, label, score: 0.8, box: [0, 0, 10, 10], model: 'm@1',
});
const PHOTOS = [photo('a', 'car', 300), photo('bb', 'car', 1500), photo('ccc', 'person', 100), photo('dddd', 'car', 900)];

async function ask(query: string, waiting: number) {
  const asked: string[] = [];
  const photos: PhotoDetections = {
    classes,
    showing: async (label) => (asked.push(label), PHOTOS.filter((p) => p.label === label)),
    waiting: () => waiting,
  };
  const plan = parseQuery(query, { catalog, coordinates: [], fileNames: [], detections: classes });
  expect(plan.notRead).toEqual([]);
  const run = await answerPlan({
    plan, catalog, now: new Date(), coordinates: [], uploads: new UploadSet(), cells: [], limit: 100, photos,
    layers: { store: () => ({}) as LayerStore },
    work: { slice: createSlicer(), indexer: {} as PointIndexer },
  });
  return { run, asked };
}

describe('an answer about photos', () => {
  it('lists the photos of the class within the distance, nearest first, asking the catalog for that class only', async () => {
    const { run, asked } = await ask('photos showing automobiles within 1 km of 45.76, 4.84', 0);
    expect(asked).toEqual(['car']);
    expect(run.features.map((f) => f.properties.source_id)).toEqual(['a', 'dddd']);
    expect(run.features.map((f) => f.properties.distance_meters)).toEqual([expect.closeTo(300, 0), expect.closeTo(900, 0)]);
    expect(run.set).toBeNull();
    expect(run.warnings).not.toContainEqual(expect.objectContaining({ code: 'photos_pending' }));
  });

  it('says how many photos the detector has yet to look at', async () => {
    const { run } = await ask('photos showing cars within 1 km of 45.76, 4.84', 7);
    expect(run.warnings).toContainEqual(expect.objectContaining({ code: 'photos_pending', photos: 7 }));
  });
});
