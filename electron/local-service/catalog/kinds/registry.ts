import type { Layer } from '../catalog';
import { airports } from './airports';
import { cities } from './cities';
import { countries } from './countries';
import type { Cell, Columns, KindEntry } from './entry';
import type { KindMapper } from './mapper';
import { UPLOADS } from './uploads';

/** The built-in kinds, in the order their labels are listed in messages. */
export const BUILTIN_KINDS: readonly KindEntry[] = [cities, airports, countries];

/** A kind's items: its point layer, its entry and its source columns. */
export interface KindLayer<C = Columns> extends Layer {
  entry: KindEntry;
  cols: C;
  /** The parts of item i's feature that its entry gives (id, name, address, link, properties). */
  feature: KindMapper;
}

/** A noun of the lexicon: which kind, said in the plural or not, and what it implies. */
export interface NounReading {
  kind: string;
  plural: boolean;
  label: string;
  sets?: Record<string, boolean>;
}

/** One kind's reading of a modifier adjective ("major": large airports). */
export interface AdjectiveReading {
  kind: string;
  key: string;
  value: boolean;
  /** How the value is said ("large" for "major"). */
  label: string;
  topic: string;
}

/** Words of the kinds, built from their entries: what the question reader looks subjects up in. */
export interface Lexicon {
  nouns: Map<string, NounReading>;
  adjectives: Map<string, AdjectiveReading[]>;
}

/** Storage codes of saved result sets: one byte per item. */
export interface KindCodes {
  codeOf(kind: string): number;
  kindOf(code: number): string;
}

export interface Kinds {
  list: KindLayer[];
  lexicon: Lexicon;
  codes: KindCodes;
  /** The kind a question without a subject is about. */
  fallback: string;
  /** The kind of that name; an unknown name is an error, never uploads. */
  get(name: string): KindLayer;
  /** How items of a kind (or uploads) are said; an unknown name is an error. */
  label(name: string): { one: string; many: string };
  /** Labels ("cities and countries") of the kinds that pass a test, for messages. */
  labels(test: (k: KindLayer) => boolean): string;
  /** Whether items of a kind have populations (uploads have none). */
  populated(name: string): boolean;
  /** Labels of the kinds with populations ("cities and countries"), for messages. */
  populatedLabels: string;
}

export class UnknownKindError extends Error {
  constructor(readonly kind: string) {
    super(`unknown kind "${kind}"`);
  }
}

/** Codes of the given entries and of uploads; two kinds of one code are an error. */
export function kindCodes(entries: readonly Pick<KindEntry, 'name' | 'code'>[]): KindCodes {
  const byCode = new Map<number, string>();
  const byName = new Map<string, number>();
  for (const e of [...entries, UPLOADS]) {
    if (!Number.isInteger(e.code) || e.code < 0 || e.code > 255) throw new Error(`kind "${e.name}": storage code ${e.code} is not a byte`);
    const other = byCode.get(e.code);
    if (other !== undefined) throw new Error(`kind "${e.name}": storage code ${e.code} is already "${other}"`);
    byCode.set(e.code, e.name);
    byName.set(e.name, e.code);
  }
  return {
    codeOf(kind) {
      const c = byName.get(kind);
      if (c === undefined) throw new UnknownKindError(kind);
      return c;
    },
    kindOf(code) {
      const k = byCode.get(code);
      if (k === undefined) throw new Error(`no kind has storage code ${code}`);
      return k;
    },
  };
}

/** Codes of the built-in kinds and uploads (a store opened without a catalog). */
export const BUILTIN_CODES = kindCodes(BUILTIN_KINDS);

function lexiconOf(list: readonly KindEntry[]): Lexicon {
  const nouns = new Map<string, NounReading>();
  const adjectives = new Map<string, AdjectiveReading[]>();
  const claim = (word: string, reading: NounReading) => {
    const prev = nouns.get(word);
    if (prev && prev.kind !== reading.kind) throw new Error(`kind "${reading.kind}": the noun "${word}" already names "${prev.kind}"`);
    nouns.set(word, reading);
  };
  for (const e of list) {
    const keys = new Set((e.modifiers ?? []).map((m) => m.key));
    for (const n of e.nouns) {
      for (const key of Object.keys(n.sets ?? {}))
        if (!keys.has(key)) throw new Error(`kind "${e.name}": a noun sets "${key}", which is no modifier of it`);
      const base = { kind: e.name, label: n.label ?? e.label.many, ...(n.sets ? { sets: n.sets } : {}) };
      for (const w of n.one) claim(w, { ...base, plural: false });
      for (const w of n.many) claim(w, { ...base, plural: true });
    }
    for (const m of e.modifiers ?? [])
      for (const group of m.words ?? [])
        for (const w of group.words) {
          const list = adjectives.get(w) ?? [];
          list.push({ kind: e.name, key: m.key, value: group.value, label: group.label, topic: m.topic ?? m.key });
          adjectives.set(w, list);
        }
  }
  return { nouns, adjectives };
}

/** Checks an entry against its columns: every column it names exists, one cell per item. */
export function checkColumns(e: KindEntry, cols: Columns): void {
  const named = [
    ...Object.values(e.columns).filter((v): v is string => typeof v === 'string'),
    e.id.column,
    ...e.address,
    ...e.properties.map((p) => p.column),
    ...(e.modifiers ?? []).map((m) => m.column),
    ...(e.order ?? []).map((o) => o.column),
    ...(e.score && 'column' in e.score ? [e.score.column] : []),
    ...[...e.source.url.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
  ];
  const size = cols[e.columns.lon]?.length;
  for (const c of named) {
    const col = cols[c];
    if (!col) throw new Error(`kind "${e.name}": no column "${c}" in its source`);
    if (col.length !== size) throw new Error(`kind "${e.name}": column "${c}" has ${col.length} cells, not ${size}`);
  }
}

export function buildKinds(list: KindLayer[]): Kinds {
  const byName = new Map<string, KindLayer>();
  for (const k of list) {
    if (byName.has(k.entry.name)) throw new Error(`kind "${k.entry.name}" is defined twice`);
    byName.set(k.entry.name, k);
  }
  const entries = list.map((k) => k.entry);
  const labels = (test: (k: KindLayer) => boolean) => {
    const names = list.filter(test).map((k) => k.entry.label.many);
    return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  };
  const fallbacks = entries.filter((e) => e.fallback);
  if (fallbacks.length !== 1) throw new Error(`exactly one kind is the fallback subject; ${fallbacks.length} are`);
  return {
    list,
    lexicon: lexiconOf(entries),
    codes: kindCodes(entries),
    fallback: fallbacks[0]!.name,
    get(name) {
      const k = byName.get(name);
      if (!k) throw new UnknownKindError(name);
      return k;
    },
    label(name) {
      return name === UPLOADS.name ? UPLOADS.label : this.get(name).entry.label;
    },
    labels,
    populated(name) {
      return name !== UPLOADS.name && !!this.get(name).entry.columns.population;
    },
    populatedLabels: labels((k) => !!k.entry.columns.population),
  };
}

/** Rows of objects as columns (the layout of row-wise sources). */
export function rowsToColumns(rows: readonly Record<string, Cell>[]): Columns {
  const cols: Record<string, Cell[]> = {};
  const keys = new Set(rows.flatMap((r) => Object.keys(r)));
  for (const key of keys) cols[key] = rows.map((r) => r[key] ?? null);
  return cols;
}
