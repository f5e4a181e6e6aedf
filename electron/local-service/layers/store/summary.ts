import type { ColumnSummary, LayerSummary } from './layer-store';

/** Distinct values kept per column; a column with more (names of a city, ids) keeps none. */
export const SUMMARY_VALUES = 2000;
/** Longer texts (descriptions, opening hours) are not words of the vocabulary. */
const MAX_VALUE_LENGTH = 64;
/** Columns kept per layer; OSM extracts carry thousands of rare keys. A summary this full may lack some. */
export const MAX_COLUMNS = 1000;

interface Column {
  count: number;
  values: Map<string, number> | null;
  numeric: boolean;
}

const NUMBER = /^\s*-?\d+(?:\.\d+)?\s*$/;

/**
 * Collects a layer's columns and their distinct values while it is imported, so the question
 * vocabulary of a layer is known without reading it again.
 */
export function createSummaryCollector() {
  const cols = new Map<string, Column>();
  return {
    add(props: Record<string, unknown>) {
      for (const key in props) {
        const v = props[key];
        if (v === null || v === undefined || typeof v === 'object') continue;
        let c = cols.get(key);
        if (!c) {
          if (cols.size >= MAX_COLUMNS) continue;
          c = { count: 0, values: new Map(), numeric: true };
          cols.set(key, c);
        }
        c.count++;
        const text = String(v);
        if (c.numeric && typeof v !== 'number' && !NUMBER.test(text)) c.numeric = false;
        if (!c.values || text.length > MAX_VALUE_LENGTH) continue;
        c.values.set(text, (c.values.get(text) ?? 0) + 1);
        if (c.values.size > SUMMARY_VALUES) c.values = null;
      }
    },
    result(): LayerSummary {
      const columns: ColumnSummary[] = [...cols].map(([key, c]) => ({
        key,
        count: c.count,
        numeric: c.numeric,
        values: c.values ? [...c.values].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v) : null,
      }));
      return { columns: columns.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1)) };
    },
  };
}

/** Whether a feature's tags pass any of the tests (no tests: every feature). */
export function passes(tags: Record<string, unknown>, match: readonly { key: string; values?: string[] }[][] | undefined): boolean {
  if (!match) return true;
  return match.some((all) =>
    all.every((c) => {
      const v = tags[c.key];
      if (v === undefined || v === null) return false;
      return !c.values || c.values.includes(String(v));
    }),
  );
}
