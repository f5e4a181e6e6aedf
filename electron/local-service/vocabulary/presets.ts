import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { TagMatch } from '../layers/store/layer-store';
import { phraseKey, singularForms } from './phrases';

/** One way of saying what a preset is: its name, a term, an alias, or its tag value in words. */
export interface PresetPhrase {
  key: string;
  /** The preset's name, for answers and warnings. */
  label: string;
  match: TagMatch;
  /**
   * Other taggings of the same thing: the unsearchable presets that take their name from this one
   * (amenity=school for the School preset education=school). A feature with any of them matches.
   */
  also: TagMatch[];
  /** 3 name, 2 alias, 1 tag value, 0 term: a phrase several presets share goes to the strongest. */
  strength: number;
  /**
   * The preset's matchScore (1 unless it says less): of presets sharing a phrase at one strength,
   * the weaker match ("School Building", 0.5) gives way to the thing itself.
   */
  score: number;
  /** The tag keys of the preset's own fields ("admin_level" for Administrative Boundary). */
  fields: string[];
}

interface Preset {
  fields?: string[];
  tags?: Record<string, string>;
  searchable?: boolean;
  geometry?: string[];
  /** "{education/school}": the preset takes its name from another, being another tagging of it. */
  name?: string;
  matchScore?: number;
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
  const fieldKeys = JSON.parse(readFileSync(join(dir, 'fields.min.json'), 'utf8')) as Record<string, { key?: string }>;
  const fixed = (p: Preset): TagMatch => Object.entries(p.tags ?? {}).filter(([, v]) => v !== '*').map(([key, v]) => ({ key, values: [v] }));
  const taggings = new Map<string, TagMatch[]>();
  for (const p of Object.values(presets)) {
    const of = /^\{(.+)\}$/.exec(p.name ?? '')?.[1];
    const match = fixed(p);
    if (!of || p.searchable !== false || !match.length || match.some((c) => c.key.startsWith('@'))) continue;
    taggings.set(of, [...(taggings.get(of) ?? []), match]);
  }
  const out: PresetPhrase[] = [];
  for (const [id, p] of Object.entries(presets)) {
    const tags = Object.entries(p.tags ?? {}).filter(([, v]) => v !== '*');
    // Generic presets (a key with any value) and unsearchable ones (fallbacks, deprecated) name no thing.
    if (!tags.length || p.searchable === false || tags.some(([k]) => k === 'area')) continue;
    const t = words[id];
    if (!t?.name) continue;
    const match = fixed(p);
    const also = taggings.get(id) ?? [];
    const score = p.matchScore ?? 1;
    const fields = (p.fields ?? []).flatMap((f) => (fieldKeys[f]?.key ? [fieldKeys[f]!.key!] : []));
    const add = (text: string, strength: number) => {
      const key = phraseKey(text);
      if (key) out.push({ key, label: t.name!, match, also, strength, score, fields });
    };
    add(t.name, 3);
    for (const a of (t.aliases ?? '').split('\n')) if (a) add(a, 2);
    const main = tags[tags.length - 1]![1];
    if (!/^(yes|no)$/.test(main)) add(main.replace(/_/g, ' '), 1);
    for (const term of (t.terms ?? '').split(',')) if (term.trim()) add(term.trim(), 0);
  }
  // iD's preset categories name groups of things ("Major Roads": motorway … tertiary and their
  // links; "Paths"; "Waterways"): each is a phrase for any of its members. Those named "… Features"
  // or "… Equipment" are groups for browsing, not words people ask with.
  const categories = JSON.parse(readFileSync(join(dir, 'preset_categories.min.json'), 'utf8')) as Record<string, { members: string[] }>;
  const names = (en.en.presets as unknown as { categories?: Record<string, { name?: string }> }).categories ?? {};
  for (const [id, c] of Object.entries(categories)) {
    const name = names[id]?.name;
    if (!name || / (features|equipment)$/i.test(name)) continue;
    const members = c.members.flatMap((m) => {
      const p = presets[m];
      const match = p ? fixed(p) : [];
      return match.length && !match.some((x) => x.key.startsWith('@')) ? [match] : [];
    });
    if (!members.length) continue;
    // Named in the plural: kept in the singular, as the question's last word is looked up.
    const words = phraseKey(name).split(' ');
    const key = [...words.slice(0, -1), singularForms(words.at(-1)!).at(-1)!].join(' ');
    if (key) out.push({ key, label: name, match: members[0]!, also: members.slice(1), strength: 3, score: 1, fields: [] });
  }
  return out;
}
