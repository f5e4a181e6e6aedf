import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import type { LayerInfo, LayerSummary } from '../../../electron/local-service/layers/store/layer-store';
import { readModels } from '../../../electron/local-service/imagery/perception/models';
import { ClassVocabulary } from '../../../electron/local-service/imagery/perception/vocabulary';
import { CONSTRUCTS } from '../../../electron/local-service/query/constructs';
import { constructsReading, type ParseContext } from '../../../electron/local-service/query/parse';
import { isGrammarWord } from '../../../electron/local-service/query/words';
import { loadPresetPhrases } from '../../../electron/local-service/vocabulary/presets';
import { buildVocabulary } from '../../../electron/local-service/vocabulary/vocabulary';

const catalog = loadCatalog(defaultCatalogDir());
const layer = (id: string, name: string, types: Record<string, number>): LayerInfo => ({
  id, name, sourceFile: `/data/${name}`, format: 'geojson', featureCount: 1, geometryTypes: types, bbox: [0, 0, 1, 1], sizeBytes: 1, licence: null, sourceText: name, warnings: [], createdAt: '2026-01-01T00:00:00Z',
});
const col = (key: string, values: string[] | null, numeric = false) => ({ key, count: 10, values, numeric });
const osm: LayerSummary = {
  columns: [
    col('amenity', ['pharmacy', 'cafe']), col('highway', ['footway', 'primary', 'service']), col('bridge', ['yes']),
    col('waterway', ['river']), col('name', ['Lenne', 'Nordviertel']), col('website', null), col('opening_hours', null),
    col('wheelchair', ['yes', 'no']), col('operator', ['Lenne']), col('capacity', ['40', '150'], true), col('addr:housenumber', null),
  ],
};
// The columns the entries ask for their examples, each in a layer of its own.
const asked = CONSTRUCTS.flatMap((c, n) =>
  c.exampleColumns ? [{ info: layer(`x${n}`, `example ${n}`, { Point: 1 }), summary: { columns: Object.entries(c.exampleColumns).map(([k, v]) => col(k, v ? [...v] : null)) } }] : []);
const districts: LayerSummary = { columns: [col('name', ['Nordviertel', 'Süd'])] };
const vocabulary = buildVocabulary({
  layers: [{ info: layer('osm', 'osm', { Point: 1, LineString: 1 }), summary: osm }, { info: layer('d', 'districts', { Polygon: 2 }), summary: districts }, ...asked],
  presets: loadPresetPhrases(),
  brands: null,
  reserved: isGrammarWord,
});
const classes = new ClassVocabulary(readModels().classes);

/** The request an example needs: the layers always; files, a view and photos when it says so. */
function contextOf(needs: readonly string[] = []): ParseContext {
  return {
    catalog, coordinates: [], vocabulary,
    fileNames: needs.includes('files') ? ['sites.csv'] : [],
    ...(needs.includes('files') ? { uploadValues: new Map([['open', { key: 'status', value: 'open' }]]) } : {}),
    ...(needs.includes('view') ? { view: { west: 4, south: 45, east: 5, north: 46 } } : {}),
    ...(needs.includes('photos') ? { detections: classes } : {}),
  };
}

describe('the construct table', () => {
  it('has one entry per id, each with an example question', () => {
    expect(new Set(CONSTRUCTS.map((c) => c.id)).size).toBe(CONSTRUCTS.length);
    for (const c of CONSTRUCTS) expect(c.example.trim(), c.id).not.toBe('');
  });

  // An entry whose example another construct reads first is shadowed; one that reads nothing is dead.
  it.each(CONSTRUCTS.map((c) => [c.id, c] as const))('%s reads its own example', (_, c) => {
    const read = constructsReading(c.example, contextOf(c.needs)).map((x) => x.id);
    expect(read, `"${c.example}" read by ${read.join(', ')}`).toContain(c.id);
  });
});
