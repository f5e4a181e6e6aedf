import { LeftOut, type ElType, type Filter, type Program, type Stmt, type TagFilter } from './ql-parse';
import { haversineM, inRing, keyOf, runQl, tagTest, type Element } from './ql-run';
import { breakingValue, otherValue, valueFor } from './tag-values';

type LonLat = [number, number];
type Box = [number, number, number, number]; // south, west, north, east

/** One request's synthetic extract and what the gold query makes of it. */
export interface Scene {
  elements: Element[];
  /** Features placed to match (printed by the query): each must be in the gold set. */
  expected: Set<string>;
  /** Near misses placed beside them: none may be in the gold set. */
  decoys: Set<string>;
  /** The gold set over this extract alone. */
  gold: Set<string>;
  /** The map view the request is asked with. */
  view: Box;
  /** The extent of everything placed, [west, south, east, north]. */
  extent: [number, number, number, number];
  /** Names of the areas placed (lower case): two scenes of one layer must not share one. */
  areaNames: string[];
}

export interface SceneInput {
  program: Program;
  /** Where to build: the view's centre, a position of the query, or a free slot. */
  center: LonLat;
  /** The view the request came with, else one is made around the centre. */
  view: Box | null;
  /** Allocates element ids, unique across scenes that share a layer. */
  ids: { next: number };
  rand: () => number;
  /** Area names that are countries: a reader may take their real borders, so nothing is put outside them. */
  countries?: readonly string[];
}

/** Half the side of a named area (degrees of latitude; about 2 km). */
const AREA_HALF = 0.02;
/** Side of a way or relation placed (metres), unless a distance of the query is small. */
const FEATURE_M = 25;

const offset = (p: LonLat, dx: number, dy: number): LonLat => [p[0] + dx / (111_320 * Math.cos((p[1] * Math.PI) / 180)), p[1] + dy / 110_574];
const square = (c: LonLat, side: number): LonLat[] => {
  const h = side / 2;
  const ring = [offset(c, -h, -h), offset(c, h, -h), offset(c, h, h), offset(c, -h, h)];
  return [...ring, ring[0]!];
};
const boxRing = (b: Box): LonLat[] => [[b[1], b[0]], [b[3], b[0]], [b[3], b[2]], [b[1], b[2]], [b[1], b[0]]];
const inBox = (p: LonLat, b: Box) => p[1] >= b[0] && p[1] <= b[2] && p[0] >= b[1] && p[0] <= b[3];

/** A spatial condition of a statement, with how to place inside or outside it. */
type Where =
  | { kind: 'box'; box: Box }
  | { kind: 'area'; rings: LonLat[][]; country: boolean }
  | { kind: 'around'; anchors: LonLat[]; r: number };

function whereOf(f: Filter, sets: Map<string, Element[]>, view: Box, countryNames: ReadonlySet<string>): Where | null {
  switch (f.kind) {
    case 'tag':
      return null;
    case 'bbox':
      return { kind: 'box', box: f.box === 'view' ? view : f.box };
    case 'area': {
      const rings = (sets.get(f.set) ?? []).filter((e) => e.type !== 'node').map((e) => e.coords);
      if (!rings.length) throw new LeftOut('area filter on a set without areas (in a union, after another statement)');
      return { kind: 'area', rings, country: (sets.get(f.set) ?? []).some((e) => countryNames.has(e.tags['name']?.toLowerCase() ?? '')) };
    }
    case 'around':
      return { kind: 'around', anchors: [[f.lon, f.lat]], r: f.r };
    case 'aroundSet': {
      const anchors = (sets.get(f.set) ?? []).flatMap((e) => e.coords);
      if (!anchors.length) throw new LeftOut('around a set that holds nothing');
      return { kind: 'around', anchors, r: f.r };
    }
  }
}

/** Every vertex well inside (or, `outside`, every vertex well outside) the condition. */
function holds(w: Where, coords: LonLat[], outside: boolean): boolean {
  switch (w.kind) {
    case 'box':
      return coords.every((p) => inBox(p, w.box) !== outside);
    case 'area':
      return coords.every((p) => w.rings.some((r) => inRing(p, r)) !== outside);
    case 'around':
      return outside
        ? coords.every((p) => w.anchors.every((a) => haversineM(p, a) > 1.3 * w.r))
        : w.anchors.some((a) => coords.every((p) => haversineM(p, a) <= 0.75 * w.r));
  }
}

function sample(w: Where, outside: boolean, rand: () => number): LonLat {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  switch (w.kind) {
    case 'around': {
      const a = pick(w.anchors);
      const d = outside ? w.r * (1.6 + rand() * 1.4) : w.r * (0.05 + rand() * 0.55);
      const t = rand() * 2 * Math.PI;
      return offset(a, d * Math.cos(t), d * Math.sin(t));
    }
    case 'area':
      if (outside) {
        // Beyond the 20 km a reader may take for "in CITY" around its centre.
        const r = pick(w.rings);
        const c: LonLat = [(r[0]![0] + r[2]![0]) / 2, (r[0]![1] + r[2]![1]) / 2];
        const d = 25_000 + rand() * 15_000;
        const t = rand() * 2 * Math.PI;
        return offset(c, d * Math.cos(t), d * Math.sin(t));
      }
    // falls through
    case 'box': {
      const [s, wst, n, e] =
        w.kind === 'box' ? w.box : (() => {
          const r = pick(w.rings);
          return [Math.min(...r.map((p) => p[1])), Math.min(...r.map((p) => p[0])), Math.max(...r.map((p) => p[1])), Math.max(...r.map((p) => p[0]))] as Box;
        })();
      const grow = outside ? 0.6 : -0.1;
      const dy = (n - s) * grow;
      const dx = (e - wst) * grow;
      return [wst - dx + rand() * (e - wst + 2 * dx), s - dy + rand() * (n - s + 2 * dy)];
    }
  }
}

const usesView = (p: Program) =>
  p.globalBox === 'view' || JSON.stringify(p.stmts).includes('"box":"view"');

const sizeOf = (w: Where) => (w.kind === 'around' ? w.r : w.kind === 'box' ? (w.box[2] - w.box[0]) * 110_574 : AREA_HALF * 2 * 110_574);

/**
 * Builds the synthetic extract of one request from its gold query: per query statement, two
 * features that match it where it asks (inside the named area, the view, the box, the radius),
 * and near misses: the same tags just outside each of those, and inside with one tag changed or
 * a negated tag present. Named areas are boundary relations with name, boundary=administrative,
 * admin_level and place. The gold set is then the gold query run over the extract; a near miss
 * that another branch of the query matches is taken out, and every placed match must be in it.
 */
export function buildScene(input: SceneInput): Scene {
  const { program, center, ids, rand } = input;
  const view: Box = input.view ?? [center[1] - 0.03, center[0] - 0.05, center[1] + 0.03, center[0] + 0.05];
  const elements: Element[] = [];
  const sets = new Map<string, Element[]>([['_', []]]);
  const expected = new Set<string>();
  const decoys = new Set<string>();
  const areas = new Map<string, Element>();
  const areaNames: string[] = [];
  const countryNames = new Set((input.countries ?? []).map((n) => n.toLowerCase()));

  const area = (name: string, level: number, half: number, extra: Record<string, string> = {}): Element => {
    const known = areas.get(name.toLowerCase());
    if (known) return known;
    const c = center;
    const ring: LonLat[] = boxRing([c[1] - half, c[0] - half * 1.5, c[1] + half, c[0] + half * 1.5]);
    const tags: Record<string, string> = { type: 'boundary', boundary: 'administrative', admin_level: String(level), name, place: level >= 8 ? 'city' : 'state', ...extra };
    const e: Element = { type: 'relation', id: ids.next++, tags, coords: ring };
    elements.push(e);
    areas.set(name.toLowerCase(), e);
    areaNames.push(name.toLowerCase());
    return e;
  };

  /** An element of `type` placed inside every condition but `breaking`, and well outside that one. */
  const place = (type: ElType, tags: Record<string, string>, where: Where[], breaking: Where | null, size: number): Element | null => {
    const free: Where = { kind: 'box', box: [center[1] - 0.01, center[0] - 0.015, center[1] + 0.01, center[0] + 0.015] };
    const from = breaking ?? [...where].sort((a, b) => sizeOf(a) - sizeOf(b))[0] ?? free;
    for (let t = 0; t < 300; t++) {
      const p = sample(from, breaking !== null, rand);
      const coords = type === 'node' ? [p] : square(p, size);
      if (!coords.every((q) => Math.abs(q[1]) < 85 && Math.abs(q[0]) < 180)) continue;
      if (where.every((w) => w === breaking || holds(w, coords, false)) && (!breaking || holds(breaking, coords, true)))
        return { type, id: ids.next++, tags, coords };
    }
    return null;
  };

  const query = (st: Extract<Stmt, { kind: 'query' }>): Element[] => {
    const filters = program.globalBox ? [...st.filters, { kind: 'bbox' as const, box: program.globalBox }] : st.filters;
    const tagFilters = filters.filter((f): f is TagFilter => f.kind === 'tag');
    const where = filters.map((f) => whereOf(f, sets, view, countryNames)).filter((w): w is Where => w !== null);
    const tags: Record<string, string> = {};
    for (const key of new Set(tagFilters.map((f) => f.key))) {
      const v = valueFor(key, tagFilters);
      if (v === null) throw new LeftOut('tag tests no value satisfies');
      if (v !== undefined) tags[key] = v;
    }
    if (st.types.includes('relation')) {
      if (tags['route'] !== undefined || (tags['type'] !== undefined && !['multipolygon', 'boundary'].includes(tags['type'])))
        throw new LeftOut('relations that are not areas (routes, restrictions)');
      if (st.types.length === 1) tags['type'] ??= 'multipolygon';
    }
    const minR = Math.min(...where.map((w) => (w.kind === 'around' ? w.r : Infinity)));
    const size = Math.min(FEATURE_M, minR / 20);
    const withType = (type: ElType, t: Record<string, string>) => (type === 'relation' && t['type'] === undefined ? { ...t, type: 'multipolygon' } : t);
    const matches: Element[] = [];
    for (let k = 0; k < 2; k++) {
      const type = st.types[k % st.types.length]!;
      const e = place(type, withType(type, tags), where, null, size);
      if (!e) throw new LeftOut('extract: no place satisfies the query (radius 0, areas apart)');
      matches.push(e);
    }
    const near: Element[] = [];
    // The same tags just outside each place condition; not outside a country, whose real border the
    // synthetic area does not follow.
    for (const w of where) {
      if (w.kind === 'area' && w.country) continue;
      const e = place(st.types[near.length % st.types.length]!, tags, where, w, size);
      if (e) near.push({ ...e, tags: withType(e.type, tags) });
    }
    // Inside, one tag test broken: the main tags first, then the negated ones present.
    const broken: Record<string, string>[] = [];
    for (const f of tagFilters) {
      const t = { ...tags };
      if (f.op === '=' && !tagFilters.some((g) => g !== f && g.key === f.key && g.op !== '!=' && g.op !== '!~' && g.op !== 'absent')) t[f.key] = otherValue(f.value);
      else if (f.op === 'exists' || f.op === '~' || f.op === '=') delete t[f.key];
      else {
        const v = breakingValue(f);
        if (v === null) continue;
        t[f.key] = v;
      }
      if (!tagFilters.every((g) => tagTest(g, t))) broken.push(t);
    }
    for (const t of broken.slice(0, 3)) {
      const e = place(st.types[near.length % st.types.length]!, {}, where, null, size);
      if (e) near.push({ ...e, tags: withType(e.type, t) });
    }
    elements.push(...matches, ...near);
    for (const e of near) decoys.add(keyOf(e));
    return matches;
  };

  const exec = (st: Stmt): Element[] | null => {
    let res: Element[];
    switch (st.kind) {
      case 'geocodeArea': {
        const names = st.names.length ? st.names : ['?'];
        // "A, B": A inside B; the query's area is A.
        for (let k = names.length - 1; k >= 1; k--) area(names[k]!, Math.max(2, 8 - 2 * k), AREA_HALF * (1 + k));
        res = [area(names[0]!, 8, AREA_HALF)];
        break;
      }
      case 'areaQuery': {
        const tf = st.filters.filter((f): f is TagFilter => f.kind === 'tag');
        if (tf.length !== st.filters.length) throw new LeftOut('area query with a place condition');
        if (!tf.some((f) => f.key === 'name' && f.op === '=')) throw new LeftOut('area by code or tags, not by name');
        const extra: Record<string, string> = {};
        for (const key of new Set(tf.map((f) => f.key))) {
          const v = valueFor(key, tf);
          if (v === null) throw new LeftOut('tag tests no value satisfies');
          if (v !== undefined) extra[key] = v;
        }
        const e = area(extra['name'] ?? `Area ${ids.next}`, Number(extra['admin_level']) || 8, AREA_HALF, extra);
        if (!tf.every((f) => tagTest(f, e.tags))) throw new LeftOut('area tags the extract cannot give');
        res = [e];
        break;
      }
      case 'query':
        res = query(st);
        break;
      case 'union': {
        const parts: Element[] = [];
        for (const it of st.items) parts.push(...(exec(it) ?? []));
        res = [...new Map(parts.map((e) => [keyOf(e), e])).values()];
        break;
      }
      case 'set':
        res = sets.get(st.from) ?? [];
        break;
      case 'out':
        for (const e of sets.get(st.set) ?? []) expected.add(keyOf(e));
        return null;
      case 'down':
        return null;
    }
    sets.set(st.out, res);
    return res;
  };
  for (const st of program.stmts) exec(st);
  if (!program.stmts.some((s) => s.kind === 'out')) for (const e of sets.get('_') ?? []) expected.add(keyOf(e));

  // A near miss another branch of the query matches is no near miss: take it out.
  let gold = runQl(program, elements, { view });
  const stray = [...decoys].filter((k) => gold.has(k));
  if (stray.length) {
    for (const k of stray) decoys.delete(k);
    const keep = elements.filter((e) => !stray.includes(keyOf(e)));
    elements.length = 0;
    elements.push(...keep);
    gold = runQl(program, elements, { view });
  }
  for (const k of expected) if (!gold.has(k)) throw new LeftOut('extract: a placed match is not in the gold set');
  for (const k of decoys) if (gold.has(k)) throw new LeftOut('extract: a near miss is in the gold set');
  const all = elements.flatMap((e) => e.coords);
  if (usesView(program)) all.push([view[1], view[0]], [view[3], view[2]]);
  const extent: [number, number, number, number] = [
    Math.min(...all.map((p) => p[0])), Math.min(...all.map((p) => p[1])), Math.max(...all.map((p) => p[0])), Math.max(...all.map((p) => p[1])),
  ];
  return { elements, expected, decoys, gold, view, extent, areaNames };
}

