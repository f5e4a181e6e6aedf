import type { LayerInfo, LayerStore, LayerSummary, TagMatch } from '../layers/store/layer-store';
import { phraseKey } from './phrases';

/** One name of place features of a layer, and the tag tests that find those features again. */
export interface PlaceName {
  name: string;
  layer: LayerInfo;
  /** The tags it was read from ("alt_name", "name:de"). */
  keys: string[];
  /** Any of them holds: one name may be written in several tags of one feature, or name several. */
  match: TagMatch[];
}

/** Tags that hold a place's names; several names in one value are separated by ";" (OSM convention). */
const isNameKey = (key: string) => key === 'name' || key === 'alt_name' || key === 'old_name' || key === 'official_name' || key.startsWith('name:');

/**
 * Every name of every place feature (place=*) of the layers: native, alternative, former, official
 * and each language's, so a loaded extract becomes part of the gazetteer. Layers without a place
 * column are not read.
 */
export async function placeNamesOf(store: LayerStore, layers: { info: LayerInfo; summary: LayerSummary }[]): Promise<PlaceName[]> {
  const out: PlaceName[] = [];
  for (const { info, summary } of layers) {
    const byPhrase = new Map<string, PlaceName>();
    if (!summary.columns.some((c) => c.key === 'place')) continue;
    for await (const page of store.scan(info.id, { match: [[{ key: 'place' }]] })) {
      for (const f of page) {
        for (const [key, value] of Object.entries(f.tags)) {
          if (!isNameKey(key) || typeof value !== 'string') continue;
          const test: TagMatch = [{ key: 'place' }, { key, values: [value] }];
          for (const raw of value.split(';')) {
            const name = raw.trim();
            const phrase = phraseKey(name);
            if (!phrase) continue;
            const p = byPhrase.get(phrase);
            if (!p) byPhrase.set(phrase, { name, layer: info, keys: [key], match: [test] });
            else {
              if (!p.keys.includes(key)) p.keys.push(key);
              if (!p.match.some((m) => m[1]!.key === key && m[1]!.values![0] === value)) p.match.push(test);
            }
          }
        }
      }
    }
    out.push(...byPhrase.values());
  }
  return out;
}
