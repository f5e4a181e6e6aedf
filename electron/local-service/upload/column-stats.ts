/** Distinct text values kept per column: one past the most a category column has (query/upload-words.ts). */
export const MAX_DISTINCT = 50;

/** What is known of one column of uploaded features, gathered row by row. */
export interface ColumnState {
  key: string;
  /** Distinct text values in the order first seen, at most MAX_DISTINCT + 1; null when no value was text. */
  texts: string[] | null;
  /** A value other than undefined, null or '' was seen. */
  filled: boolean;
  /** A value other than undefined, null or '' that is no finite number (numericValue) was seen. */
  nonNumeric: boolean;
  /** A null (a typed table column's empty cell) was seen. */
  nulls: boolean;
  /** An empty text ('') was seen. */
  blanks: boolean;
}

/** Numbers as numericValue (query/source.ts) reads them: a number, or a text that is one. */
function finite(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v));
}

/**
 * The columns of uploaded features, their category values and whether they hold only numbers,
 * gathered while the rows are read: what the question reader and the sources ask of the columns
 * is then answered without reading every row again. Columns come in the order a pass over the
 * rows' attributes first meets them, as `for…in` over each row would.
 */
export class ColumnStats {
  private readonly byKey = new Map<string, ColumnState>();

  static from(states: readonly ColumnState[]): ColumnStats {
    const s = new ColumnStats();
    for (const c of states) s.byKey.set(c.key, { ...c, texts: c.texts && [...c.texts] });
    return s;
  }

  add(attributes: Record<string, unknown>): void {
    for (const key in attributes) {
      let c = this.byKey.get(key);
      if (!c) this.byKey.set(key, (c = { key, texts: null, filled: false, nonNumeric: false, nulls: false, blanks: false }));
      const v = attributes[key];
      if (typeof v === 'string') {
        const texts = (c.texts ??= []);
        if (texts.length <= MAX_DISTINCT && !texts.includes(v)) texts.push(v);
      }
      if (v === null) c.nulls = true;
      else if (v === '') c.blanks = true;
      else if (v !== undefined) {
        c.filled = true;
        if (!c.nonNumeric && !finite(v)) c.nonNumeric = true;
      }
    }
  }

  /** What a table's column typing does to its values: a typed column holds no text, its empty cells null. */
  retype(typed: readonly { key: string; as: 'number' | 'boolean' }[]): void {
    for (const t of typed) {
      const c = this.byKey.get(t.key);
      if (!c) continue;
      c.nulls ||= c.blanks;
      c.blanks = false;
      c.texts = null;
    }
  }

  /** These columns followed by another set's rows, as one pass over both would have seen them. */
  merge(other: ColumnStats): void {
    for (const o of other.byKey.values()) {
      const c = this.byKey.get(o.key);
      if (!c) {
        this.byKey.set(o.key, { ...o, texts: o.texts && [...o.texts] });
        continue;
      }
      if (o.texts) {
        const texts = (c.texts ??= []);
        for (const v of o.texts) if (texts.length <= MAX_DISTINCT && !texts.includes(v)) texts.push(v);
      }
      c.filled ||= o.filled;
      c.nonNumeric ||= o.nonNumeric;
      c.nulls ||= o.nulls;
      c.blanks ||= o.blanks;
    }
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  states(): ColumnState[] {
    return [...this.byKey.values()];
  }

  /** Columns every value of which is a number, empty ('') or absent, with at least one present. */
  numericColumns(): string[] {
    return this.states()
      .filter((c) => !c.nonNumeric && !c.nulls)
      .map((c) => c.key);
  }
}
