/**
 * One way of colouring what the map draws, for results, uploads and data layers alike: one
 * colour per layer, by rank (the order the service ranked the results in, in four steps from
 * strong to pale), or by the values of a chosen column (the commonest values each a colour of
 * their own, the rest as "Other"). The legend lists exactly the classes the map draws.
 */

/** Distinct hues for categories (Tableau 10 without its grey), told apart on both basemap themes. */
export const CATEGORY_COLOURS = ['#e8710a', '#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'] as const;
/** Values past the palette, and features without the column. */
export const OTHER_COLOUR = '#6f7780';
/** Rank quarters, best first: a sequential orange ramp, darkest for the best ranked. */
export const RANK_COLOURS = ['#8c2d04', '#d94801', '#f16913', '#fdae6b'] as const;

export type Colouring = { by: 'layer' } | { by: 'rank' } | { by: 'column'; column: string };

/** One line of the legend: the class's key (what is hidden when it is turned off), its text, colour and count. */
export interface LegendClass {
  key: string;
  label: string;
  colour: string;
  count: number;
}

export const NO_VALUE = '(no value)';
/** The key of the "Other" class: no value can have it. */
export const OTHER_KEY = '\u0000other';

/** A value as a category: empty and missing values are one category. */
export function categoryKey(v: unknown): string {
  if (v === null || v === undefined || v === '') return NO_VALUE;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A column's value in a feature's properties; `attributes.x` reads an uploaded attribute. */
export function columnValue(properties: Record<string, unknown> | null | undefined, column: string): unknown {
  if (!properties) return undefined;
  if (column.startsWith('attributes.')) return (properties['attributes'] as Record<string, unknown> | undefined)?.[column.slice(11)];
  return properties[column];
}

/**
 * Classes of features and each feature's class, in the features' order: `classOf[i]` is the
 * index into `classes` of feature i.
 */
export function classify(features: readonly { properties?: Record<string, unknown> | null }[], colouring: Colouring, layerColour: string): { classes: LegendClass[]; classOf: number[] } {
  const n = features.length;
  if (colouring.by === 'layer') return { classes: [{ key: 'all', label: 'All', colour: layerColour, count: n }], classOf: features.map(() => 0) };
  if (colouring.by === 'rank') {
    const steps = RANK_COLOURS.length;
    const classOf = features.map((_, i) => Math.min(steps - 1, Math.floor((i * steps) / Math.max(1, n))));
    const classes: LegendClass[] = [];
    for (let s = 0; s < steps; s++) {
      const members = classOf.flatMap((c, i) => (c === s ? [i] : []));
      if (!members.length) continue;
      const first = members[0]! + 1;
      const last = members[members.length - 1]! + 1;
      classes.push({ key: `rank-${s}`, label: first === last ? `#${first}` : `#${first}–${last}`, colour: RANK_COLOURS[s]!, count: members.length });
    }
    // Class indexes into the classes kept (every step is kept when n >= steps).
    const kept = classes.map((c) => Number(c.key.slice(5)));
    return { classes, classOf: classOf.map((s) => kept.indexOf(s)) };
  }
  const keys = features.map((f) => categoryKey(columnValue(f.properties, colouring.column)));
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  const ordered = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const room = ordered.length > CATEGORY_COLOURS.length ? CATEGORY_COLOURS.length - 1 : ordered.length;
  const classes: LegendClass[] = ordered.slice(0, room).map(([key, count], i) => ({ key, label: key, colour: key === NO_VALUE ? OTHER_COLOUR : CATEGORY_COLOURS[i]!, count }));
  const rest = ordered.slice(room).reduce((s, [, c]) => s + c, 0);
  if (rest) classes.push({ key: OTHER_KEY, label: `Other (${ordered.length - room} values)`, colour: OTHER_COLOUR, count: rest });
  const index = new Map(classes.map((c, i) => [c.key, i]));
  return { classes, classOf: keys.map((k) => index.get(k) ?? classes.length - 1) };
}

/** The columns a set can be coloured by: every property and uploaded attribute with a plain value, in first-seen order. */
export function colourableColumns(features: readonly { properties?: Record<string, unknown> | null }[]): string[] {
  const seen = new Set<string>();
  const plain = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  for (const f of features) {
    for (const [k, v] of Object.entries(f.properties ?? {})) {
      if (k === 'attributes' && v && typeof v === 'object') {
        for (const [a, av] of Object.entries(v as Record<string, unknown>)) if (plain(av)) seen.add(`attributes.${a}`);
      } else if (plain(v)) seen.add(k);
    }
  }
  return [...seen];
}
