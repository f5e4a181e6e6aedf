import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LayerInfo, LayerSummary } from '../../../electron/local-service/layers/store/layer-store';
import { isGrammarWord } from '../../../electron/local-service/query/words';
import { loadBrands } from '../../../electron/local-service/vocabulary/brands';
import { phraseKey, singularForms } from '../../../electron/local-service/vocabulary/phrases';
import { loadPresetPhrases } from '../../../electron/local-service/vocabulary/presets';
import { buildVocabulary, type Vocabulary } from '../../../electron/local-service/vocabulary/vocabulary';

// The raw preset data, read here to say what the vocabulary must find.
const require = createRequire(import.meta.url);
const schemaDir = join(dirname(require.resolve('@openstreetmap/id-tagging-schema/package.json')), 'dist');
const en = JSON.parse(readFileSync(join(schemaDir, 'translations', 'en.json'), 'utf8')).en.presets.presets as Record<string, { name: string; terms?: string; aliases?: string }>;
const presetsRaw = JSON.parse(readFileSync(join(schemaDir, 'presets.json'), 'utf8')) as Record<string, { tags: Record<string, string> }>;

const presets = loadPresetPhrases();

function layer(id: string, name: string, types: Record<string, number> = { Point: 1 }): LayerInfo {
  return { id, name, sourceFile: `/data/${name}`, format: 'geojson', featureCount: 1, geometryTypes: types, bbox: [0, 0, 1, 1], sizeBytes: 1, licence: null, sourceText: name, warnings: [], createdAt: '2026-01-01T00:00:00Z' };
}
const col = (key: string, values: string[] | null, numeric = false) => ({ key, count: 10, values, numeric });

const osm = layer('osm', 'Lennbrück OSM');
const osmSummary: LayerSummary = {
  columns: [
    col('amenity', ['pharmacy', 'cafe', 'fire_station']),
    col('power', ['generator', 'substation']),
    col('generator:source', ['wind']),
    col('name', ['Lenne', 'Nordviertel', 'near']),
    col('bridge', ['yes']),
    col('capacity', ['40', '150'], true),
    col('brand:wikidata', ['Q37158']),
  ],
};
const districts = layer('d', 'districts', { Polygon: 3 });
const districtSummary: LayerSummary = { columns: [col('name', ['Nord', 'Süd'])] };

function vocab(withOsm = true, brands: ReturnType<typeof loadBrands> | null = null): Vocabulary {
  const layers = [...(withOsm ? [{ info: osm, summary: osmSummary }] : []), { info: districts, summary: districtSummary }];
  return buildVocabulary({ layers, presets, brands, reserved: isGrammarWord });
}
const words = (text: string) => phraseKey(text).split(' ');
const lookup = (v: Vocabulary, text: string) => v.at(words(text), 0);

describe('phrases', () => {
  it('reads English plurals back to their singular', () => {
    expect(singularForms('pharmacies')).toContain('pharmacy');
    expect(singularForms('churches')).toContain('church');
    expect(singularForms('shops')).toContain('shop');
    expect(singularForms('bus')).toEqual(['bus']);
  });
});

describe('the vocabulary', () => {
  it('takes every searchable iD preset name with its tags from the package', () => {
    const byKey = new Map(presets.map((p) => [`${p.key}|${JSON.stringify(p.match)}`, p]));
    for (const id of ['amenity/pharmacy', 'amenity/fire_station', 'power/substation', 'power/generator/source/wind']) {
      const tags = Object.entries(presetsRaw[id]!.tags).map(([key, v]) => ({ key, values: [v] }));
      expect(byKey.has(`${phraseKey(en[id]!.name)}|${JSON.stringify(tags)}`), id).toBe(true);
    }
  });

  it('"pharmacies" and a term of the preset ("chemist") point at the layer that holds amenity=pharmacy', () => {
    const v = vocab();
    const term = en['amenity/pharmacy']!.terms!.split(',').find((t) => t === 'chemist')!;
    for (const text of ['pharmacies', term]) {
      const m = lookup(v, text)!;
      expect(m.selection.sources).toEqual([{ layer: osm, match: [[{ key: 'amenity', values: ['pharmacy'] }]] }]);
      expect(m.selection.reading).toContain(en['amenity/pharmacy']!.name);
    }
    expect(lookup(v, 'pharmacies')!.selection.plural).toBe(true);
    expect(lookup(v, 'pharmacy')!.selection.plural).toBe(false);
  });

  it('multi-word names match longest first ("fire stations", "wind turbines")', () => {
    const v = vocab();
    const fire = lookup(v, 'fire stations')!;
    expect(fire.len).toBe(2);
    expect(fire.selection.sources[0]!.match).toEqual([[{ key: 'amenity', values: ['fire_station'] }]]);
    const wind = lookup(v, 'wind turbines')!;
    expect(wind.len).toBe(2);
    expect(wind.selection.sources[0]!.match).toEqual([Object.entries(presetsRaw['power/generator/source/wind']!.tags).map(([key, val]) => ({ key, values: [val] }))]);
  });

  it('knows a preset no layer holds, with no source', () => {
    const m = lookup(vocab(false), 'pharmacies')!;
    expect(m.selection.sources).toEqual([]);
    expect(m.selection.reading).toContain('amenity=pharmacy');
  });

  it('a layer by its name, plural or singular; a column value; a yes/no column by its name', () => {
    const v = vocab();
    expect(lookup(v, 'districts')!.selection.sources).toEqual([{ layer: districts }]);
    expect(lookup(v, 'district')!.selection.sources).toEqual([{ layer: districts }]);
    expect(lookup(v, 'Lenne')!.selection.sources).toEqual([{ layer: osm, match: [[{ key: 'name', values: ['Lenne'] }]] }]);
    expect(lookup(v, 'Süd')!.selection.sources).toEqual([{ layer: districts, match: [[{ key: 'name', values: ['Süd'] }]] }]);
    expect(lookup(v, 'bridges')!.selection.sources).toEqual([{ layer: osm, match: [[{ key: 'bridge', values: ['yes'] }]] }]);
  });

  it('no phrase starts with a grammar word, even when a column holds it', () => {
    expect(lookup(vocab(), 'near')).toBeNull();
  });

  it('numeric columns are conditions, not words', () => {
    const v = vocab();
    expect(v.numeric.get('capacity')).toEqual(['capacity']);
    expect(lookup(v, '150')).toBeNull();
  });

  it('brands of name-suggestion-index only when a layer holds their Wikidata id', () => {
    const brands = loadBrands();
    const nsi = JSON.parse(readFileSync(join(dirname(require.resolve('name-suggestion-index')), '..', 'json', 'nsi.json'), 'utf8')).nsi as Record<string, { items: { tags: Record<string, string>; matchNames?: string[] }[] }>;
    const starbucks = nsi['brands/amenity/cafe']!.items.find((i) => i.tags['brand'] === 'Starbucks' && i.tags['brand:wikidata'] === 'Q37158')!;
    const v = vocab(true, brands);
    for (const name of [starbucks.tags['brand']!, starbucks.tags['official_name']!, ...(starbucks.matchNames ?? [])]) {
      expect(lookup(v, name)?.selection.sources, name).toEqual([{ layer: osm, match: [[{ key: 'brand:wikidata', values: ['Q37158'] }]] }]);
    }
    // Lidl (Q151954) is a brand of the index, but no layer here holds it.
    expect(brands.has('Q151954')).toBe(true);
    expect(lookup(v, 'Lidl')).toBeNull();
  });
});
