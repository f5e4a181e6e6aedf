import type { LayerInfo, LayerSummary, TagMatch } from '../layers/store/layer-store';
import type { Brand } from './brands';
import type { PlaceName } from './place-names';
import { phraseKey, singularForms } from './phrases';
import type { PresetPhrase } from './presets';

/** Where a subject's features are: a layer, and the tag tests they pass there (absent: all of it). */
export interface Source {
  layer: LayerInfo;
  match?: TagMatch[];
}

/** What a phrase of a question names: features of some layers, or nothing any layer holds. */
export interface Selection {
  /** How the answer says it ("Pharmacy Counter", "districts", "Starbucks"). */
  label: string;
  /** The words of the question. */
  said: string;
  /** How the words were read, for warnings ("the OSM preset Pharmacy Counter: amenity=pharmacy"). */
  reading: string;
  /** Whether the words were plural ("pharmacies"). */
  plural: boolean;
  /** Empty when the words are known but no layer holds such features. */
  sources: Source[];
}

export interface Vocabulary {
  layers: LayerInfo[];
  summaries: ReadonlyMap<string, LayerSummary>;
  /** The longest phrase at token i of the words (normalized), else null. */
  at(words: readonly string[], i: number): { selection: Selection; len: number } | null;
  /** Numeric columns of any layer, by normalized name ("capacity"), with their original keys. */
  numeric: ReadonlyMap<string, string[]>;
  /** Whether some layer has this column ("wikidata", "admin_level"). */
  hasKey(key: string): boolean;
  /**
   * The features of every layer that has the column (with one of `values`, when given): what
   * "amenity=bench" or "admin level 8" names when nothing else in the question is the subject.
   */
  tagSelection(key: string, values: string[] | undefined, said: string): Selection;
  /**
   * What a key said in words names ("admin level 8"): the features of the presets that have the
   * key as a field (Administrative Boundary for admin_level) and carry it, where a layer holds
   * them; else every feature with the key.
   */
  keySelection(key: string, said: string): Selection;
  /** Whether key=value is a value some preset tags or some layer's column lists ("shop=hearing_aids"). */
  knowsValue(key: string, value: string): boolean;
}

export interface VocabularyInput {
  layers: { info: LayerInfo; summary: LayerSummary }[];
  presets: readonly PresetPhrase[];
  /** Brands by Wikidata id; only those some layer holds become words. */
  brands: ReadonlyMap<string, Brand> | null;
  /** Names of the layers' place features (absent: none). */
  places?: readonly PlaceName[];
  /** Words that are grammar or kinds: no phrase may start with one. */
  reserved: (word: string) => boolean;
}

interface Entry {
  rank: number;
  label: string;
  reading: string;
  sources: Source[];
}

/** Texts of yes/no columns: the column's name is then the word ("bridge" -> bridge=yes). */
const YES_NO = new Set(['yes', 'no', 'true', 'false', '1', '0', 'limited', 'designated', 'only', 'permissive', 'private']);
/** Longest column value taken as a word. */
const MAX_WORD_VALUE = 40;

/** Whether a layer's columns can hold features passing every test of m. */
const holds = (s: LayerSummary, m: TagMatch) =>
  m.every((c) => {
    const col = s.columns.find((x) => x.key === c.key);
    return col && (!c.values || !col.values || c.values.some((v) => col.values!.includes(v)));
  });

/** Both tests at once: one test per key, values that pass both; null when none can. */
function both(a: TagMatch, b: TagMatch): TagMatch | null {
  const out = new Map<string, string[] | undefined>();
  for (const c of [...a, ...b]) {
    if (!out.has(c.key)) out.set(c.key, c.values);
    else {
      const prev = out.get(c.key);
      const values = !prev ? c.values : !c.values ? prev : prev.filter((v) => c.values!.includes(v));
      if (values && !values.length) return null;
      out.set(c.key, values);
    }
  }
  return [...out].map(([key, values]) => (values ? { key, values } : { key }));
}

/**
 * "second hand shops", "abandoned railways", "power substations": a phrase before the head
 * noun narrows it; the features are those both name, in the layers that can hold them. Empty
 * sources when no layer holds features both name (the caller then refuses the qualifier).
 */
export function narrowSelection(head: Selection, by: Selection, summaries: ReadonlyMap<string, LayerSummary>, said: string): Selection {
  const sources: Source[] = [];
  for (const h of head.sources) {
    const summary = summaries.get(h.layer.id);
    const match: TagMatch[] = [];
    for (const q of by.sources.filter((x) => x.layer.id === h.layer.id)) {
      for (const hm of h.match ?? [[]]) {
        for (const qm of q.match ?? [[]]) {
          const m = both(hm, qm);
          if (m && (!summary || holds(summary, m)) && !match.some((x) => matchText(x) === matchText(m))) match.push(m);
        }
      }
    }
    if (match.length) sources.push(match.every((m) => !m.length) ? { layer: h.layer } : { layer: h.layer, match: match.filter((m) => m.length) });
  }
  // Named as the narrower of the two when the answer is just that one's features ("Thrift Store").
  const text = sourcesText;
  const label = text(sources) === text(by.sources) ? by.label : text(sources) === text(head.sources) ? head.label : `${by.label} ${head.label}`;
  return { label, said, reading: `${head.reading}, narrowed by "${by.said}" (${by.reading})`, plural: head.plural, sources };
}

/** The features sources name, as text: two selections of one text name the same features. */
export const sourcesText = (xs: readonly Source[]): string => xs.map((x) => `${x.layer.id}:${(x.match ?? []).map(matchText).join('|')}`).join(' ');

const matchText = (m: TagMatch) => m.map((c) => `${c.key}=${c.values?.join('|') ?? '*'}`).join(' + ');

/**
 * The vocabulary of questions, built from data once per layer change: layer names, OSM presets,
 * brands and the values of each layer's columns, each pointing at the layers that hold them.
 * A phrase claimed by several sources goes to the strongest (layer name, preset, brand, column
 * value); among presets, a name beats an alias, a tag value and a term.
 */
export function buildVocabulary(input: VocabularyInput): Vocabulary {
  const entries = new Map<string, Entry>();
  const numeric = new Map<string, string[]>();
  let maxLen = 1;
  const add = (key: string, e: Entry) => {
    if (!key || input.reserved(key.split(' ')[0]!)) return;
    const prev = entries.get(key);
    // A phrase some layer holds beats one no layer holds; then the stronger source wins; equals merge.
    if (prev && (prev.sources.length > 0) === (e.sources.length > 0)) {
      if (prev.rank < e.rank) return;
      if (prev.rank === e.rank) {
        for (const s of e.sources) if (!prev.sources.some((p) => p.layer.id === s.layer.id && p.match === s.match)) prev.sources.push(s);
        return;
      }
    } else if (prev && prev.sources.length > 0) return;
    entries.set(key, { ...e, sources: [...e.sources] });
    maxLen = Math.max(maxLen, key.split(' ').length);
  };
  const summaries = new Map(input.layers.map((l) => [l.info.id, l.summary]));
  const presetValues = new Set(input.presets.flatMap((p) => [p.match, ...p.also].flatMap((m) => m.flatMap((c) => (c.values ?? []).map((v) => `${c.key}=${v}`)))));

  for (const { info } of input.layers) {
    // A layer named in the plural ("districts") is also said in the singular ("per district").
    const key = phraseKey(info.name);
    const words = key.split(' ');
    for (const last of singularForms(words.at(-1) ?? ''))
      add([...words.slice(0, -1), last].join(' '), { rank: 0, label: info.name, reading: `the layer "${info.name}"`, sources: [{ layer: info }] });
  }

  for (const p of input.presets) {
    const taggings = [p.match, ...p.also];
    const sources = input.layers.flatMap((l) => {
      const match = taggings.filter((m) => holds(l.summary, m));
      return match.length ? [{ layer: l.info, match }] : [];
    });
    const said = taggings.map(matchText).join(' or ');
    add(p.key, { rank: 10 - p.strength + (1 - p.score) / 10, label: p.label, reading: `the OSM preset "${p.label}" (${said})`, sources });
  }

  // A key of the layer's tags is a word for any value of it ("shops": shop=*, "railways"): weaker
  // than a preset's name or tag value, stronger than its terms.
  for (const l of input.layers) {
    for (const col of l.summary.columns) {
      if (col.numeric || !/^[a-z]+$/.test(col.key) || col.key === 'name' || (col.values && col.values.every((v) => YES_NO.has(v.toLowerCase())))) continue;
      add(phraseKey(col.key), { rank: 9.5, label: col.key, reading: `any ${col.key}=* in "${l.info.name}"`, sources: [{ layer: l.info, match: [[{ key: col.key }]] }] });
    }
  }

  if (input.brands) {
    for (const l of input.layers) {
      const col = l.summary.columns.find((c) => c.key === 'brand:wikidata');
      for (const q of col?.values ?? []) {
        const b = input.brands.get(q);
        if (!b) continue;
        const match: TagMatch[] = [[{ key: 'brand:wikidata', values: [q] }]];
        for (const k of b.keys) add(k, { rank: 20, label: b.label, reading: `the brand ${b.label} (brand:wikidata=${q})`, sources: [{ layer: l.info, match }] });
      }
    }
  }

  // The first tag of the presets that also fix a tag ("amenity=social_facility" for
  // social_facility=nursing_home): what a feature of that value is tagged as first.
  const parentOfValue = new Map<string, TagMatch[number]>();
  for (const p of input.presets) {
    if (p.strength !== 3 || p.match.length < 2) continue;
    const [first, ...rest] = p.match;
    for (const c of rest) if (c.values?.length === 1 && c.key !== first!.key && !parentOfValue.has(`${c.key}=${c.values[0]}`)) parentOfValue.set(`${c.key}=${c.values[0]}`, first!);
  }
  for (const l of input.layers) {
    for (const col of l.summary.columns) {
      if (col.numeric) {
        const k = phraseKey(col.key);
        if (k) numeric.set(k, [...new Set([...(numeric.get(k) ?? []), col.key])]);
        continue;
      }
      if (!col.values) continue;
      if (col.values.every((v) => YES_NO.has(v.toLowerCase()))) {
        if (col.values.includes('yes'))
          add(phraseKey(col.key.replace(/_/g, ' ')), { rank: 30, label: col.key, reading: `${col.key}=yes in "${l.info.name}"`, sources: [{ layer: l.info, match: [[{ key: col.key, values: ['yes'] }]] }] });
        continue;
      }
      for (const v of col.values) {
        if (v.length > MAX_WORD_VALUE || YES_NO.has(v.toLowerCase())) continue;
        // A value a preset is named by carries the preset's other tags the layer holds
        // (social_facility=nursing_home with amenity=social_facility): the thing, not a stray tag.
        const parent = parentOfValue.get(`${col.key}=${v}`);
        const tests: TagMatch = parent && holds(l.summary, [parent]) ? [parent, { key: col.key, values: [v] }] : [{ key: col.key, values: [v] }];
        const match: TagMatch[] = [tests];
        add(phraseKey(v.replace(/_/g, ' ')), { rank: 30, label: v, reading: `${matchText(tests)} in "${l.info.name}"`, sources: [{ layer: l.info, match }] });
      }
    }
  }

  // A place's names, each a word for that feature: weaker than a column value of the same
  // spelling, which already names it when the layer's values are few enough to be listed.
  for (const p of input.places ?? [])
    add(phraseKey(p.name), { rank: 31, label: p.name, reading: `the place ${p.keys.join(' / ')}=${p.name} in "${p.layer.name}"`, sources: [{ layer: p.layer, match: p.match }] });

  return {
    layers: input.layers.map((l) => l.info),
    summaries,
    numeric,
    keySelection(key, said) {
      const presets = input.presets.filter((p) => p.fields.includes(key) && p.strength === 3);
      const sources = input.layers.flatMap((l) => {
        const match = presets.map((p) => [...p.match, { key }]).filter((m) => holds(l.summary, m));
        return match.length ? [{ layer: l.info, match }] : [];
      });
      if (!sources.length) return this.tagSelection(key, undefined, said);
      const labels = [...new Set(presets.filter((p) => input.layers.some((l) => holds(l.summary, p.match))).map((p) => p.label))];
      return { label: labels.join(', '), said, reading: `the OSM presets with a ${key} field (${labels.join(', ')})`, plural: true, sources };
    },
    hasKey: (key) => input.layers.some((l) => l.summary.columns.some((c) => c.key === key)),
    knowsValue: (key, value) =>
      presetValues.has(`${key}=${value}`) || input.layers.some((l) => l.summary.columns.some((c) => c.key === key && !!c.values?.includes(value))),
    tagSelection(key, values, said) {
      const m = [{ key, ...(values ? { values } : {}) }];
      const sources = input.layers.filter((l) => holds(l.summary, m)).map((l) => ({ layer: l.info, match: [m] }));
      const text = `${key}=${values?.join('|') ?? '*'}`;
      return { label: text, said, reading: `the tag ${text}`, plural: true, sources };
    },
    at(words, i) {
      for (let len = Math.min(maxLen, words.length - i); len >= 1; len--) {
        let head = words.slice(i, i + len - 1);
        const last = words[i + len - 1]!;
        // "places of worship": the plural is the first word of a phrase with "of".
        if (head.length >= 2 && head[1] === 'of') {
          const first = singularForms(head[0]!).find((f) => entries.has([f, ...head.slice(1), last].join(' ')));
          if (first) head = [first, ...head.slice(1)];
        }
        // "wind turbines": a form some layer holds ("wind turbine") beats one none holds (a term "wind turbines").
        const forms = singularForms(last).filter((f) => entries.has([...head, f].join(' ')));
        const form = forms.find((f) => entries.get([...head, f].join(' '))!.sources.length) ?? forms[0];
        if (form !== undefined) {
          const e = entries.get([...head, form].join(' '))!;
          return {
            len,
            selection: { label: e.label, said: words.slice(i, i + len).join(' '), reading: e.reading, plural: form !== last, sources: e.sources },
          };
        }
      }
      return null;
    },
  };
}
