/**
 * A reader of the part of Overpass QL whose answer is a set of tagged features the bench can
 * judge: node / way / relation / nwr statements with tag filters, unions, named sets, areas by
 * name (`{{geocodeArea:X}}`, `area["name"="X"]`), `around` a position or a set, the map view and
 * boxes. Anything else throws `LeftOut` with a short reason, counted by the bench.
 *
 * Written for the bench: the npm packages that speak Overpass (overpass-ts, query-overpass,
 * @derhuerst/query-overpass) only send a query to a server, and overpass-frontend's filter parser
 * reads one statement's filters for its own cache (no scripts of named sets, unions or the
 * overpass-turbo shortcuts `{{geocodeArea}}` / `{{bbox}}`) and would bring a dozen dependencies.
 */

export type ElType = 'node' | 'way' | 'relation';

export type TagFilter =
  | { kind: 'tag'; key: string; op: 'exists' | 'absent' }
  | { kind: 'tag'; key: string; op: '=' | '!=' | '~' | '!~'; value: string; ci: boolean };

export type Filter =
  | TagFilter
  /** Inside the areas of a set (`_` when the query names none). */
  | { kind: 'area'; set: string }
  | { kind: 'around'; r: number; lat: number; lon: number }
  | { kind: 'aroundSet'; r: number; set: string }
  /** [south, west, north, east], or the map view. */
  | { kind: 'bbox'; box: [number, number, number, number] | 'view' };

export type Stmt =
  | { kind: 'query'; types: ElType[]; filters: Filter[]; out: string }
  | { kind: 'union'; items: Stmt[]; out: string }
  /** `{{geocodeArea:"A, B"}}`: the parts of the name, innermost first. */
  | { kind: 'geocodeArea'; names: string[]; out: string }
  /** `area[...]`: areas by their tags. */
  | { kind: 'areaQuery'; filters: Filter[]; out: string }
  /** `.a;` or `.a->.b;` */
  | { kind: 'set'; from: string; out: string }
  /** `out ...;` or `.a out;`: prints the default set, or the named one. */
  | { kind: 'out'; set: string }
  /** `>;`: adds the members' untagged nodes, which are no features: the default set is kept. */
  | { kind: 'down' };

export interface Program {
  stmts: Stmt[];
  /** `[bbox:...]` of the settings: a box every query statement is also filtered by. */
  globalBox?: [number, number, number, number] | 'view';
}

/** A query outside the judged subset, with the reason counted by the bench. */
export class LeftOut extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const TYPES: Record<string, ElType[]> = {
  node: ['node'], way: ['way'], rel: ['relation'], relation: ['relation'], nwr: ['node', 'way', 'relation'],
  nw: ['node', 'way'], nr: ['node', 'relation'], wr: ['way', 'relation'],
};
const METADATA = new Set(['uid', 'user', 'changed', 'newer', 'version', 'id', 'timestamp']);
const RECURSION = new Set(['w', 'r', 'bn', 'bw', 'br', 'pivot', 'n']);

export function parseQl(text: string): Program {
  let i = 0;
  const s = text;
  const ws = () => {
    for (;;) {
      while (i < s.length && /\s/.test(s[i]!)) i++;
      if (s.startsWith('//', i)) while (i < s.length && s[i] !== '\n') i++;
      else if (s.startsWith('/*', i)) i = s.indexOf('*/', i) < 0 ? s.length : s.indexOf('*/', i) + 2;
      else return;
    }
  };
  const peek = (t: string) => (ws(), s.startsWith(t, i));
  const eat = (t: string) => {
    if (!peek(t)) return false;
    i += t.length;
    return true;
  };
  const expect = (t: string) => {
    if (!eat(t)) throw new LeftOut(`syntax (expected "${t}")`);
  };
  const ident = () => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
    if (!m) return null;
    i += m[0].length;
    return m[0];
  };
  const str = (): string => {
    ws();
    const q = s[i];
    if (q === '"' || q === "'") {
      let out = '';
      i++;
      while (i < s.length && s[i] !== q) {
        if (s[i] === '\\' && i + 1 < s.length) {
          const c = s[i + 1]!;
          out += c === 'n' ? '\n' : c === 't' ? '\t' : c;
          i += 2;
        } else out += s[i++];
      }
      if (s[i] !== q) throw new LeftOut('syntax (unclosed string)');
      i++;
      if (/\{\{/.test(out)) throw new LeftOut('template inside a value');
      return out;
    }
    if (s.startsWith('{{', i)) throw new LeftOut('template inside a value');
    const m = /^[A-Za-z0-9_:.-]+/.exec(s.slice(i));
    if (!m) throw new LeftOut('syntax (expected a key or value)');
    i += m[0].length;
    return m[0];
  };
  const num = (): number => {
    ws();
    if (s.startsWith('{{', i)) throw new LeftOut(`template {{${s.slice(i + 2).split(/[:}=]/)[0]}}}`);
    const m = /^-?\d+(\.\d+)?(e-?\d+)?/i.exec(s.slice(i));
    if (!m) throw new LeftOut('syntax (expected a number)');
    i += m[0].length;
    return Number(m[0]);
  };
  const outName = (): string => {
    if (!eat('->')) return '_';
    expect('.');
    const n = ident();
    if (!n) throw new LeftOut('syntax (set name)');
    return n;
  };
  const setName = (): string => {
    expect('.');
    const n = ident();
    if (!n) throw new LeftOut('syntax (set name)');
    return n;
  };
  const boxOf = (): [number, number, number, number] | 'view' => {
    if (eat('{{bbox}}')) return 'view';
    const a = num();
    expect(',');
    const b = num();
    expect(',');
    const c = num();
    expect(',');
    const d = num();
    return [a, b, c, d];
  };

  const program: Program = { stmts: [] };
  // Settings: [out:json][timeout:25][bbox:...] before the first statement.
  for (;;) {
    if (!peek('[')) break;
    const save = i;
    i++;
    const name = ident();
    if (!name) {
      i = save;
      break;
    }
    expect(':');
    if (name === 'bbox') program.globalBox = boxOf();
    else if (name === 'out') {
      const fmt = ident();
      if (fmt === 'csv') throw new LeftOut('csv output (the request is about columns)');
    } else if (name === 'date' || name === 'diff' || name === 'adiff') throw new LeftOut('attic or diff query');
    else if (name !== 'timeout' && name !== 'maxsize') throw new LeftOut(`setting [${name}]`);
    while (i < s.length && s[i] !== ']') i++;
    expect(']');
  }

  const filterIn = (filters: Filter[]) => {
    // One filter after a type: [tags] or (spatial).
    if (eat('[')) {
      if (peek('~')) throw new LeftOut('regular expression on keys');
      if (eat('!')) {
        filters.push({ kind: 'tag', key: str(), op: 'absent' });
        expect(']');
        return;
      }
      const key = str();
      let f: TagFilter;
      if (eat('!=')) f = { kind: 'tag', key, op: '!=', value: str(), ci: false };
      else if (eat('!~')) f = { kind: 'tag', key, op: '!~', value: str(), ci: false };
      else if (eat('=')) f = { kind: 'tag', key, op: '=', value: str(), ci: false };
      else if (eat('~')) f = { kind: 'tag', key, op: '~', value: str(), ci: false };
      else f = { kind: 'tag', key, op: 'exists' };
      if (eat(',')) {
        if (ident() !== 'i') throw new LeftOut('syntax (tag filter flag)');
        if (!('value' in f)) throw new LeftOut('syntax (flag on a key)');
        f.ci = true;
      }
      expect(']');
      filters.push(f);
      return;
    }
    expect('(');
    ws();
    if (eat('{{bbox}}') || eat('bbox')) filters.push({ kind: 'bbox', box: 'view' });
    else if (/^-?\d/.test(s.slice(i))) {
      const save = i;
      num();
      const isBox = peek(',');
      i = save;
      if (!isBox) throw new LeftOut('element id');
      filters.push({ kind: 'bbox', box: boxOf() });
    } else {
      const name = ident();
      if (!name) throw new LeftOut(`filter (${s.slice(i, i + 12)})`);
      if (name === 'area' && peek(':')) throw new LeftOut('area by id');
      if (name === 'area') filters.push({ kind: 'area', set: peek('.') ? setName() : '_' });
      else if (name === 'around') {
        const set = peek('.') ? setName() : '_';
        expect(':');
        const r = num();
        if (eat(',')) {
          if (set !== '_') throw new LeftOut('syntax (around)');
          const lat = num();
          expect(',');
          const lon = num();
          if (peek(',')) throw new LeftOut('around a line of positions');
          filters.push({ kind: 'around', r, lat, lon });
        } else filters.push({ kind: 'aroundSet', r, set });
      } else if (METADATA.has(name)) throw new LeftOut('metadata (user, uid, id, changed, newer, version)');
      else if (RECURSION.has(name)) throw new LeftOut('recursion (members, parents)');
      else if (name === 'if') throw new LeftOut('if: condition');
      else if (name === 'poly') throw new LeftOut('polygon filter');
      else throw new LeftOut(`filter (${name})`);
    }
    expect(')');
  };

  /** The words of an out statement up to its ";": only counting is refused. */
  const outRest = () => {
    const end = s.indexOf(';', i) < 0 ? s.length : s.indexOf(';', i);
    if (/\bcount\b/.test(s.slice(i, end))) throw new LeftOut('out count (the request is a number)');
    i = end;
    eat(';');
  };

  const statement = (): Stmt | null => {
    ws();
    if (eat('(')) {
      const items: Stmt[] = [];
      while (!eat(')')) {
        if (i >= s.length) throw new LeftOut('syntax (unclosed union)');
        if (peek('-')) throw new LeftOut('set difference');
        const st = statement();
        if (st) items.push(st);
      }
      const out = outName();
      expect(';');
      return { kind: 'union', items, out };
    }
    if (eat('{{')) {
      const m = /^(geocodeArea|nominatimArea):/.exec(s.slice(i));
      if (!m) throw new LeftOut(`template {{${s.slice(i).split(/[:}]/)[0]}}}`);
      i += m[0].length;
      const close = s.indexOf('}}', i);
      const raw = s.slice(i, close).trim().replace(/^["']|["']$/g, '');
      i = close + 2;
      if (raw.includes(';')) throw new LeftOut('several areas in one template');
      const names = raw.split(',').map((x) => x.trim()).filter(Boolean);
      const out = outName();
      expect(';');
      return { kind: 'geocodeArea', names, out };
    }
    if (eat('>>') || eat('<<') || eat('<')) throw new LeftOut('recursion (members, parents)');
    if (eat('>')) {
      expect(';');
      return { kind: 'down' };
    }
    if (peek('.')) {
      const from = setName();
      const save = i;
      if (ident() === 'out') {
        outRest();
        return { kind: 'out', set: from };
      }
      i = save;
      const out = outName();
      expect(';');
      return { kind: 'set', from, out };
    }
    const word = ident();
    if (!word) throw new LeftOut(`syntax (${s.slice(i, i + 10)})`);
    if (word === 'out') {
      outRest();
      return { kind: 'out', set: '_' };
    }
    if (word === 'area') {
      const filters: Filter[] = [];
      if (peek('.')) throw new LeftOut('query on a named input set');
      while (peek('[') || peek('(')) filterIn(filters);
      const out = outName();
      expect(';');
      return { kind: 'areaQuery', filters, out };
    }
    const types = TYPES[word];
    if (!types) {
      if (['make', 'convert', 'for', 'foreach', 'complete', 'retro', 'compare', 'if', 'timeline', 'local', 'is_in', 'map_to_area', 'derived'].includes(word))
        throw new LeftOut(`${word} statement`);
      throw new LeftOut(`statement (${word})`);
    }
    if (peek('.')) throw new LeftOut('query on a named input set');
    const filters: Filter[] = [];
    while (peek('[') || peek('(')) filterIn(filters);
    const out = outName();
    expect(';');
    if (!filters.some((f) => f.kind === 'tag' && f.op !== 'absent' && f.op !== '!=' && f.op !== '!~')) throw new LeftOut('no positive tag filter (every element of a place)');
    return { kind: 'query', types, filters, out };
  };

  for (;;) {
    ws();
    if (i >= s.length) break;
    if (eat(';')) continue;
    const st = statement();
    if (st) program.stmts.push(st);
  }
  if (!program.stmts.some((x) => x.kind === 'query' || x.kind === 'union')) throw new LeftOut('no element query');
  return program;
}

/** The query statements of a program, unions opened, in order. */
export function queriesOf(stmts: readonly Stmt[]): Extract<Stmt, { kind: 'query' }>[] {
  return stmts.flatMap((st) => (st.kind === 'query' ? [st] : st.kind === 'union' ? queriesOf(st.items) : []));
}

/** The main tag of a program, "k=v" (or "k=*"): the first positive tag test of its first query. */
export function mainTag(p: Program): string | null {
  for (const q of queriesOf(p.stmts)) {
    const eq = q.filters.find((f) => f.kind === 'tag' && f.op === '=' && f.key !== 'name');
    if (eq && eq.kind === 'tag' && eq.op === '=') return `${eq.key}=${eq.value}`;
    const ex = q.filters.find((f) => f.kind === 'tag' && f.op === 'exists');
    if (ex && ex.kind === 'tag') return `${ex.key}=*`;
  }
  return null;
}
