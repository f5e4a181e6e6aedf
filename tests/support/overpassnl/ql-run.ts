import type { ElType, Filter, Program, Stmt, TagFilter } from './ql-parse';

/**
 * An OSM element of a synthetic extract: a tagged node (one position), or a way or relation
 * whose geometry is one closed ring (a relation's ring is written as one untagged member way).
 */
export interface Element {
  type: ElType;
  id: number;
  tags: Record<string, string>;
  /** [lon, lat] positions: one for a node, a closed ring (first = last) otherwise. */
  coords: [number, number][];
}

export const keyOf = (e: Pick<Element, 'type' | 'id'>) => `${e.type}/${e.id}`;

const RAD = Math.PI / 180;
/** Great-circle metres on the mean earth radius. */
export function haversineM(a: readonly [number, number], b: readonly [number, number]): number {
  const h = Math.sin(((b[1] - a[1]) * RAD) / 2) ** 2 + Math.cos(a[1] * RAD) * Math.cos(b[1] * RAD) * Math.sin(((b[0] - a[0]) * RAD) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Even-odd ray casting of a point against a closed ring. */
export function inRing(p: readonly [number, number], ring: readonly [number, number][]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

const regexCache = new Map<string, RegExp | null>();
/** Overpass values are POSIX extended expressions; JavaScript's reads the ones in use alike. Null when it cannot. */
export function qlRegex(value: string, ci: boolean): RegExp | null {
  const k = `${ci ? 'i' : ''}:${value}`;
  if (!regexCache.has(k)) {
    let re: RegExp | null;
    try {
      re = new RegExp(value, ci ? 'iu' : 'u');
    } catch {
      re = null;
    }
    regexCache.set(k, re);
  }
  return regexCache.get(k)!;
}

export function tagTest(f: TagFilter, tags: Record<string, string>): boolean {
  const v = tags[f.key];
  switch (f.op) {
    case 'exists':
      return v !== undefined;
    case 'absent':
      return v === undefined;
    case '=':
      return v !== undefined && (f.ci ? v.toLowerCase() === f.value.toLowerCase() : v === f.value);
    case '!=':
      return v === undefined || (f.ci ? v.toLowerCase() !== f.value.toLowerCase() : v !== f.value);
    case '~':
      return v !== undefined && !!qlRegex(f.value, f.ci)?.test(v);
    case '!~':
      return v === undefined || !qlRegex(f.value, f.ci)?.test(v);
  }
}

/** Whether an element is one of the areas Overpass derives: relations with a ring and named closed ways. */
export const isArea = (e: Element) => e.coords.length > 3 && (e.type === 'relation' || (e.type === 'way' && e.tags['name'] !== undefined));

export interface RunContext {
  /** The map view, [south, west, north, east]. */
  view: [number, number, number, number] | null;
}

const inBox = (p: readonly [number, number], b: readonly number[]) => p[1] >= b[0]! && p[1] <= b[2]! && p[0] >= b[1]! && p[0] <= b[3]!;

/**
 * Runs a program over the elements of an extract: the elements printed by its `out` statements
 * (the default set at the end when it has none), as `type/id` keys. A way or relation is inside an
 * area or box, or within a distance, when one of its vertices is (the extract's elements are small
 * beside the distances between what it places inside and outside).
 */
export function runQl(program: Program, elements: readonly Element[], ctx: RunContext): Set<string> {
  const sets = new Map<string, Element[]>([['_', []]]);
  const printed = new Set<string>();
  let outs = 0;
  const get = (name: string) => sets.get(name) ?? [];
  const view = (box: [number, number, number, number] | 'view') => {
    if (box !== 'view') return box;
    if (!ctx.view) throw new Error('the query needs the map view');
    return ctx.view;
  };
  const passes = (e: Element, filters: readonly Filter[]): boolean =>
    filters.every((f) => {
      switch (f.kind) {
        case 'tag':
          return tagTest(f, e.tags);
        case 'bbox': {
          const b = view(f.box);
          return e.coords.some((p) => inBox(p, b));
        }
        case 'area':
          return get(f.set).some((a) => isArea(a) && e.coords.some((p) => inRing(p, a.coords)));
        case 'around':
          return e.coords.some((p) => haversineM(p, [f.lon, f.lat]) <= f.r);
        case 'aroundSet':
          return get(f.set).some((a) => a.coords.some((q) => e.coords.some((p) => haversineM(p, q) <= f.r)));
      }
    });
  const union = (lists: Element[][]) => {
    const seen = new Map<string, Element>();
    for (const l of lists) for (const e of l) seen.set(keyOf(e), e);
    return [...seen.values()];
  };
  const exec = (st: Stmt): Element[] | null => {
    switch (st.kind) {
      case 'query': {
        const filters = program.globalBox ? [...st.filters, { kind: 'bbox' as const, box: program.globalBox }] : st.filters;
        const res = elements.filter((e) => st.types.includes(e.type) && passes(e, filters));
        sets.set(st.out, res);
        return res;
      }
      case 'areaQuery': {
        const res = elements.filter((e) => isArea(e) && passes(e, st.filters));
        sets.set(st.out, res);
        return res;
      }
      case 'geocodeArea': {
        const name = st.names[0]!.toLowerCase();
        const res = elements.filter((e) => isArea(e) && e.tags['name']?.toLowerCase() === name);
        sets.set(st.out, res);
        return res;
      }
      case 'union': {
        const parts: Element[][] = [];
        for (const it of st.items) {
          const r = exec(it);
          if (r) parts.push(r);
        }
        const res = union(parts);
        sets.set(st.out, res);
        return res;
      }
      case 'set': {
        const res = get(st.from);
        sets.set(st.out, res);
        return res;
      }
      case 'out':
        outs++;
        for (const e of get(st.set)) printed.add(keyOf(e));
        return null;
      case 'down':
        return null;
    }
  };
  for (const st of program.stmts) exec(st);
  if (!outs) for (const e of get('_')) printed.add(keyOf(e));
  return printed;
}
