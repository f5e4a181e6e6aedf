import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog, pointLayer } from '../../../electron/local-service/catalog/catalog';
import { UPLOADS } from '../../../electron/local-service/catalog/kinds/uploads';
import { startLayerImport } from '../../../electron/local-service/layers/import-job';
import type { LayerInfo, LayerStore } from '../../../electron/local-service/layers/store/layer-store';
import { execute } from '../../../electron/local-service/query/execute';
import type { Plan } from '../../../electron/local-service/query/plan';
import { catalogSource } from '../../../electron/local-service/query/sources/catalog';
import { detectionSource, type SeenPhoto } from '../../../electron/local-service/query/sources/detections';
import { layerSource } from '../../../electron/local-service/query/sources/layer';
import { uploadSource } from '../../../electron/local-service/query/sources/upload';
import type { UploadFeature } from '../../../electron/local-service/uploads';
import { bothLayerBackends } from '../../support/layer-backends';
import { UploadSet } from '../../../electron/local-service/upload/set';

/**
 * Each adapter of the Source interface against a brute force over the same positions (a
 * haversine here, no index): candidates within a distance, the nearest N past a lower bound, a
 * box, and what each says it holds.
 */
const RAD = Math.PI / 180;
const km = (a: number[], b: number[]) =>
  2 * 6371.0088 * Math.asin(Math.sqrt(Math.sin(((b[1]! - a[1]!) * RAD) / 2) ** 2 + Math.cos(a[1]! * RAD) * Math.cos(b[1]! * RAD) * Math.sin(((b[0]! - a[0]!) * RAD) / 2) ** 2));
/** Positions within a hair of a bound may go either way between two spheres. */
const BAND_KM = 0.01;
const catalog = loadCatalog(defaultCatalogDir());
const PARIS = [2.3522, 48.8566];

describe('catalog source (airports)', () => {
  const K = catalog.kinds.list.find((k) => k.entry.columns.population === undefined && k.size > 1000)!;
  const source = catalogSource(K, catalog);
  const all = Array.from({ length: K.size }, (_, i) => ({ i, d: km(PARIS, [K.lon[i]!, K.lat[i]!]) }));

  it('within: every item within the distance, none farther', async () => {
    const got = new Set(await source.within(PARIS, 60));
    for (const x of all) if (x.d < 60 - BAND_KM) expect(got.has(x.i)).toBe(true);
    for (const i of got) expect(all[i]!.d).toBeLessThanOrEqual(60 + BAND_KM);
    expect(got.size).toBeGreaterThan(3);
  });

  it('nearest with a lower bound: the 5 nearest past 100 km, nearest first', async () => {
    const want = all.filter((x) => x.d >= 100).sort((a, b) => a.d - b.d).slice(0, 5);
    const got = await source.nearest(PARIS, 5, 100);
    expect(got.map((i) => all[i]!.d)).toEqual(want.map((x) => expect.closeTo(x.d, 2)));
    for (const i of got) expect(all[i]!.d).toBeGreaterThanOrEqual(100 - BAND_KM);
  });

  it('a box, a country, and the columns it holds', async () => {
    const inBox = await source.inBox([2, 48.5, 3, 49.5]);
    expect(new Set(inBox)).toEqual(new Set(all.filter((x) => K.lon[x.i]! >= 2 && K.lon[x.i]! <= 3 && K.lat[x.i]! >= 48.5 && K.lat[x.i]! <= 49.5).map((x) => x.i)));
    const fr = await source.inCountry('FR');
    expect(fr.length).toBeGreaterThan(10);
    for (const i of fr) expect(source.country(i)).toBe('FR');
    expect(source.region(fr[0]!)).toBe('Europe');
    expect(source.columns()).toContain('name');
    expect(source.populated).toBe(false);
  });
});

describe('detection source (photos showing a class)', () => {
  // A grid of photos around Paris and a few in Berlin, numbered as a catalog numbers them (not from 0).
  const photos: SeenPhoto[] = [];
  for (let k = 0; k < 60; k++)
    photos.push({
      id: `photo-${k}`, key: 1000 + 7 * k, lon: PARIS[0]! + ((k % 10) - 5) * 0.03, lat: PARIS[1]! + (Math.floor(k / 10) - 3) * 0.02,
      takenAt: `2024-01-${String((k % 28) + 1).padStart(2, '0')}T10:00:00`, bearing: k % 360, label: 'car', score: (k % 10) / 10, box: [1, 2, 3, 4], model: 'm@1',
    });
  photos.push({ id: 'berlin', key: 5, lon: 13.4, lat: 52.52, takenAt: null, bearing: null, label: 'car', score: 0.5, box: [0, 0, 1, 1], model: 'm@1' });
  const source = detectionSource(photos, catalog);
  const ids = (hits: { f: { sourceId: string } }[]) => new Set(hits.map((h) => h.f.sourceId));
  const d = (p: SeenPhoto) => km(PARIS, [p.lon, p.lat]);

  it('within and nearest past a lower bound: as the brute force over the photos\' positions', async () => {
    const got = ids(await source.within(PARIS, 5));
    for (const p of photos) if (d(p) < 5 - BAND_KM) expect(got.has(p.id)).toBe(true);
    for (const p of photos) if (got.has(p.id)) expect(d(p)).toBeLessThanOrEqual(5 + BAND_KM);
    expect(got.size).toBeGreaterThan(3);
    const want = photos.filter((p) => d(p) >= 8).sort((a, b) => d(a) - d(b)).slice(0, 4);
    const near = await source.nearest(PARIS, 4, 8);
    expect(near.map((h) => d(photos.find((p) => p.id === h.f.sourceId)!))).toEqual(want.map((p) => expect.closeTo(d(p), 3)));
  });

  it('a box, a polygon, a country; each photo a point with its class, score, capture time, bearing and box', async () => {
    const box = [2.3, 48.8, 2.4, 48.9] as [number, number, number, number];
    const inBox = (p: SeenPhoto) => p.lon >= box[0] && p.lon <= box[2] && p.lat >= box[1] && p.lat <= box[3];
    expect(ids(await source.inBox(box))).toEqual(new Set(photos.filter(inBox).map((p) => p.id)));
    const ring = [[box[0], box[1]], [box[2], box[1]], [box[0], box[3]], [box[0], box[1]]];
    // The triangle below the box's diagonal from its south-east to its north-west corner.
    const below = (p: SeenPhoto) => inBox(p) && (p.lon - box[0]) / (box[2] - box[0]) + (p.lat - box[1]) / (box[3] - box[1]) < 1 - 1e-9;
    const tri = ids(await source.intersecting({ type: 'Polygon', coordinates: [ring] }, 'in the triangle'));
    for (const p of photos) if (below(p)) expect(tri.has(p.id)).toBe(true);
    expect(tri.size).toBeLessThan(photos.filter(inBox).length);
    expect(ids(await source.inCountry('DE'))).toEqual(new Set(['berlin']));
    const berlin = (await source.inCountry('DE'))[0]!;
    expect(source.country(berlin)).toBe('DE');
    expect(berlin.f.fid).toBe(5);
    expect(source.attributes(berlin)).toMatchObject({ feature_name: 'car', class: 'car', score: 0.5, photo_id: 'berlin', captured_at: null, bearing: null, box: [0, 0, 1, 1] });
    expect(source.geometry(berlin)).toEqual({ type: 'Point', coordinates: [13.4, 52.52] });
    const all = await source.all();
    expect(all).toHaveLength(photos.length);
    const times = all.map((h) => String(h.f.tags['captured_at'] ?? ''));
    expect(times).toEqual([...times].sort().reverse());
  });
});

describe('upload source', () => {
  const features: UploadFeature[] = [
    [2.35, 48.86, 'Depot', 'open', 3],
    [2.45, 48.8, 'Yard', 'closed', 1],
    [4.84, 45.76, 'Lyon site', 'open', 2],
  ].map(([lon, lat, name, status, rank], i) => ({
    id: String(i + 1), file: 'sites.csv', name: name as string, address: '', geometry: { type: 'Point', coordinates: [lon as number, lat as number] },
    lon: lon as number, lat: lat as number, country: 'FR', attributes: { name, status, rank },
  }));
  const layer = pointLayer(UPLOADS.name, features.map((f) => f.lon), features.map((f) => f.lat), features.map((f) => f.country));
  const source = uploadSource(UploadSet.of(features), layer, catalog);

  it('answers from the uploaded positions and attributes, in file order', async () => {
    expect([...(await source.all())]).toEqual([0, 1, 2]);
    expect(new Set(await source.within(PARIS, 20))).toEqual(new Set([0, 1]));
    expect(await source.nearest(PARIS, 1, 50)).toEqual([2]);
    expect(source.columns()).toEqual(['name', 'status', 'rank']);
    expect(source.numericColumns()).toEqual(['rank']);
    expect(source.attributes(1)).toMatchObject({ status: 'closed' });
    expect(source.geometry(2)).toEqual({ type: 'Point', coordinates: [4.84, 45.76] });
  });
});

const { place, backends } = bothLayerBackends('fieldlens-sources-');

describe.each(backends)('layer source on $name', ({ name, open }) => {
  let store: LayerStore;
  let layer: LayerInfo;
  // Seeded points around Paris: every third a pharmacy.
  let s = 5;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const points = Array.from({ length: 300 }, (_, i) => ({ lon: 2 + rand(), lat: 48.5 + rand() * 0.7, amenity: i % 3 ? 'cafe' : 'pharmacy', name: `P${i}` }));
  const pharmacies = points.filter((p) => p.amenity === 'pharmacy');
  beforeAll(async () => {
    store = await open();
    const file = join(place.dir, `${name.replace(/\W/g, '')}.geojson`);
    const features = points.map((p) => ({ type: 'Feature', properties: { name: p.name, amenity: p.amenity }, geometry: { type: 'Point', coordinates: [p.lon, p.lat] } }));
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
    layer = await startLayerImport({ store, file, tempDir: join(place.dir, 'tmp') }).done;
  });
  afterAll(() => store?.close());
  const sourceOf = () =>
    layerSource({
      selection: { label: 'pharmacies', said: 'pharmacies', reading: 'amenity=pharmacy', plural: true, sources: [{ layer, match: [[{ key: 'amenity', values: ['pharmacy'] }]] }] },
      store,
      catalog,
      warn: () => {},
    });
  const d = (p: { lon: number; lat: number }) => km(PARIS, [p.lon, p.lat]);

  it('within and a box: the selection\'s features only, as the brute force', async () => {
    const source = sourceOf();
    const got = new Set((await source.within(PARIS, 10)).map((h) => h.f.tags['name']));
    const want = pharmacies.filter((p) => d(p) <= 10 - BAND_KM).map((p) => p.name);
    for (const n of want) expect(got.has(n)).toBe(true);
    for (const n of got) expect(d(pharmacies.find((p) => p.name === n)!)).toBeLessThanOrEqual(10 * 1.001 + 0.001 + BAND_KM);
    const box = (await source.inBox([2.2, 48.7, 2.5, 49])).map((h) => h.f.tags['name']);
    expect(new Set(box)).toEqual(new Set(pharmacies.filter((p) => p.lon >= 2.2 && p.lon <= 2.5 && p.lat >= 48.7 && p.lat <= 49).map((p) => p.name)));
  });

  it('nearest with a lower bound: the 4 nearest pharmacies past 15 km', async () => {
    const want = pharmacies.filter((p) => d(p) >= 15).sort((a, b) => d(a) - d(b)).slice(0, 4).map((p) => p.name);
    const got = (await sourceOf().nearest(PARIS, 4, 15)).map((h) => h.f.tags['name']);
    expect(got).toEqual(want);
  });

  it('one executor: a plan over the pharmacies as a layer and as an upload answers alike, as the brute force', async () => {
    const selection = { label: 'pharmacies', said: 'pharmacies', reading: 'amenity=pharmacy', plural: true, sources: [{ layer, match: [[{ key: 'amenity', values: ['pharmacy'] }]] }] };
    const uploads: UploadFeature[] = pharmacies.map((p, i) => ({
      id: String(i + 1), file: 'p.csv', name: p.name, address: '', geometry: { type: 'Point', coordinates: [p.lon, p.lat] }, lon: p.lon, lat: p.lat, country: 'FR', attributes: { name: p.name },
    }));
    const uploadLayer = pointLayer(UPLOADS.name, uploads.map((u) => u.lon), uploads.map((u) => u.lat), uploads.map((u) => u.country));
    const paris = { type: 'points' as const, points: [{ lon: PARIS[0]!, lat: PARIS[1]!, label: 'Paris' }], label: 'Paris' };
    const base = (extra: Partial<Plan>): Plan => ({ subject: null, conditions: [], countries: [], unread: [], notRead: [], ignored: [], warnings: [], ...extra });
    const run = async (extra: Partial<Plan>, on: 'layer' | 'upload') => {
      const plan = on === 'layer' ? base({ ...extra, layerSubject: selection }) : base({ ...extra, subject: UPLOADS.name });
      const ex = await execute({ plan, catalog, uploads: { features: UploadSet.of(uploads), layer: uploadLayer }, coordinates: [], h3Cells: [], layers: { store } });
      return ex.items.slice().map((x) => ({ name: x.hit ? String(x.hit.f.tags['name']) : uploads[x.i]!.name, km: x.d! / 1000 }));
    };
    const byD = [...pharmacies].sort((a, b) => d(a) - d(b));
    // None lies within a hair of 20 km, where two spheres could disagree.
    for (const p of pharmacies) expect(Math.abs(d(p) - 20)).toBeGreaterThan(BAND_KM);
    for (const extra of [{ within: { reference: paris, radiusKm: 20 } }, { distanceRef: paris, order: 'distance' as const, top: 5 }]) {
      const layerAnswer = await run(extra, 'layer');
      const uploadAnswer = await run(extra, 'upload');
      expect(layerAnswer).toEqual(uploadAnswer);
      const want = 'within' in extra ? byD.filter((p) => d(p) <= 20) : byD.slice(0, 5);
      expect(layerAnswer.map((x) => x.name)).toEqual(want.map((p) => p.name));
      expect(layerAnswer.map((x) => x.km)).toEqual(want.map((p) => expect.closeTo(d(p), 3)));
    }
  });

  it('each feature\'s country and the columns the layer holds', async () => {
    const source = sourceOf();
    const [first] = await source.nearest(PARIS, 1);
    expect(source.country(first!)).toBe('FR');
    expect(source.attributes(first!)).toMatchObject({ amenity: 'pharmacy' });
    expect(source.layerColumns()).toEqual([null]);
  });
});
