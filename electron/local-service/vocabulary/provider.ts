import type { LayerStore } from '../layers/store/layer-store';
import { loadBrands, type Brand } from './brands';
import { placeNamesOf } from './place-names';
import { loadPresetPhrases, type PresetPhrase } from './presets';
import { buildVocabulary, type Vocabulary } from './vocabulary';

export interface VocabularyProvider {
  /** The vocabulary of the layers as they are now: built once per change, shared by questions. */
  get(): Promise<Vocabulary>;
  /** A layer was added or removed: the next question builds the vocabulary again. */
  invalidate(): void;
}

/**
 * Builds the vocabulary on first need after each layer change. Presets are read once; brands
 * only once a layer carries brand:wikidata values.
 */
export function createVocabularyProvider(deps: { store: () => LayerStore; reserved: (word: string) => boolean }): VocabularyProvider {
  let presets: PresetPhrase[] | null = null;
  let brands: Map<string, Brand> | null = null;
  let current: Promise<Vocabulary> | null = null;
  let generation = 0;

  const build = async (): Promise<Vocabulary> => {
    const store = deps.store();
    const layers = [];
    for (const info of await store.list()) layers.push({ info, summary: await store.summary(info.id) });
    presets ??= loadPresetPhrases();
    const wantsBrands = layers.some((l) => l.summary.columns.some((c) => c.key === 'brand:wikidata' && c.values?.length));
    if (wantsBrands) brands ??= loadBrands();
    const places = await placeNamesOf(store, layers);
    return buildVocabulary({ layers, presets, brands: wantsBrands ? brands : null, places, reserved: deps.reserved });
  };

  return {
    get() {
      if (!current) {
        const mine = ++generation;
        current = build();
        // A failed build is not kept: the next question tries again.
        current.catch(() => {
          if (generation === mine) current = null;
        });
      }
      return current;
    },
    invalidate() {
      generation++;
      current = null;
    },
  };
}
