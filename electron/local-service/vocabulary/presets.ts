import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { TagMatch } from '../layers/store/layer-store';
import { phraseKey } from './phrases';

/** One way of saying what a preset is: its name, a term, an alias, or its tag value in words. */
export interface PresetPhrase {
  key: string;
  /** The preset's name, for answers and warnings. */
  label: string;
  match: TagMatch;
  /** 3 name, 2 alias, 1 tag value, 0 term: a phrase several presets share goes to the strongest. */
  strength: number;
}

interface Preset {
  tags?: Record<string, string>;
  searchable?: boolean;
  geometry?: string[];
}

/**
 * Phrases of the OpenStreetMap presets of iD (@openstreetmap/id-tagging-schema, English): every
 * searchable preset with fixed tags, said by its name, aliases, terms and its main tag value
 * ("fire_station" -> "fire station"). "pharmacy" and "chemist" -> amenity=pharmacy.
 */
export function loadPresetPhrases(): PresetPhrase[] {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('@openstreetmap/id-tagging-schema/package.json')), 'dist');
  const presets = JSON.parse(readFileSync(join(dir, 'presets.min.json'), 'utf8')) as Record<string, Preset>;
  const en = JSON.parse(readFileSync(join(dir, 'translations', 'en.min.json'), 'utf8')) as {
    en: { presets: { presets: Record<string, { name?: string; terms?: string; aliases?: string }> } };
  };
  const words = en.en.presets.presets;
  const out: PresetPhrase[] = [];
  for (const [id, p] of Object.entries(presets)) {
    const tags = Object.entries(p.tags ?? {}).filter(([, v]) => v !== '*');
    // Generic presets (a key with any value) and unsearchable ones (fallbacks, deprecated) name no thing.
    if (!tags.length || p.searchable === false || tags.some(([k]) => k === 'area')) continue;
    const t = words[id];
    if (!t?.name) continue;
    const match: TagMatch = tags.map(([key, v]) => ({ key, values: [v] }));
    const add = (text: string, strength: number) => {
      const key = phraseKey(text);
      if (key) out.push({ key, label: t.name!, match, strength });
    };
    add(t.name, 3);
    for (const a of (t.aliases ?? '').split('\n')) if (a) add(a, 2);
    const main = tags[tags.length - 1]![1];
    if (!/^(yes|no)$/.test(main)) add(main.replace(/_/g, ' '), 1);
    for (const term of (t.terms ?? '').split(',')) if (term.trim()) add(term.trim(), 0);
  }
  return out;
}
