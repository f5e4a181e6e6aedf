import type { Filter, Program, Stmt, TagFilter } from './ql-parse';

/**
 * Gold queries often test tags their request never mentions: "bench in the current view" with
 * `["name"]`, "caravan sites in Bayern" with `["name"!~".*"]`, "highway in X" with
 * `["highway"!~"^(construction|cycleway|…)$"]`, "Roads in Angola" with `["source"]`. An answer to
 * the words cannot match such a gold except by guessing what the author also wanted, and would be
 * counted broader for reading exactly what was asked. Such requests are left out of the judged
 * subset, with this reason, when a query statement holds a tag test, other than its first (the
 * subject, which a request names in its own words: "gas stations" for amenity=fuel), that the
 * request does not state:
 * - a test on `name` (any operator) with no word about names in the request;
 * - a negated test of values (`!=`, `!~`) none of whose values' words is in the request, unless
 *   the request names its key and the key is not the subject's ("without a fee" for fee!=yes);
 * - a test of a key's presence or absence whose key's words (all of them, parts of 3 letters or
 *   more) are not in the request;
 * - a test of a value (`=`, `~`) none of whose key's words and none of whose value's words is in
 *   the request ("admin_level"="10" after "municipal corporations"); any one word states it, as
 *   "bio fuel" states fuel:biogas=yes.
 * The first test of a statement is never judged so: requests name their subject in their own words
 * ("nursing homes" for amenity=social_facility + social_facility=nursing_home keeps the second test).
 * Words are compared folded and without a plural ending.
 */
export const UNSTATED = 'gold tests a tag the request does not state';

// "official name", "old name" are other keys (official_name, old_name), not the name.
const NAME_WORDS = /(?<!\b(official|old|alt|alternative|short|local|international|national|regional|former|english|native) )\b(name|names|named|unnamed|nameless|called|titled|label(l)?ed)\b|"/;

const stem = (w: string) => w.replace(/(ies)$/, 'y').replace(/(ses|xes|ches|shes)$/, (m) => m.slice(0, -2)).replace(/s$/, '');
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();
const wordsOf = (s: string) =>
  fold(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map(stem);

/** The words of a value: alternatives of a regular expression split, anchors and classes dropped. */
const valueWords = (v: string) => wordsOf(v.replace(/\\.|[\^$.*+?()[\]{}]/g, ' ').replace(/\|/g, ' '));

function stated(t: TagFilter, subjectKey: string, request: string, said: ReadonlySet<string>): boolean {
  if (t.key === 'name') return NAME_WORDS.test(request.toLowerCase());
  const keyParts = wordsOf(t.key).filter((w) => w.length >= 3);
  // A value test is stated by any word of its key or its value ("bio fuel" for fuel:biogas=yes).
  if (t.op === '=' || t.op === '~') return keyParts.some((w) => said.has(w)) || valueWords(t.value).some((w) => said.has(w));
  const keySaid = keyParts.length > 0 && keyParts.every((w) => said.has(w));
  // `["k"!~"."]` is the key's absence: judged by the key's words.
  const values = t.op === '!=' || t.op === '!~' ? valueWords(t.value) : [];
  if (!values.length) return keySaid;
  // "without a fee" (fee!=yes) states its key; "highway in X" does not state highway!~"construction|…".
  return values.some((w) => said.has(w)) || (keySaid && t.key !== subjectKey);
}

const statements = (stmts: readonly Stmt[]): Extract<Stmt, { kind: 'query' }>[] =>
  stmts.flatMap((s) => (s.kind === 'query' ? [s] : s.kind === 'union' ? statements(s.items) : []));

/** The first tag test of a statement that the request does not state (see above), else null. */
export function unstatedTest(program: Program, request: string): TagFilter | null {
  const said = new Set(wordsOf(request));
  for (const st of statements(program.stmts)) {
    const tags = st.filters.filter((f: Filter): f is TagFilter => f.kind === 'tag');
    for (const t of tags.slice(1)) if (!stated(t, tags[0]!.key, request, said)) return t;
  }
  return null;
}

/**
 * Gold queries sometimes fetch a box of coordinates the author picked by hand for a named place
 * ("toilets in Bognor Regis" as a 3 km × 300 m box of its seafront). The request names the place,
 * not the box: an answer over the place cannot match the box except by guessing it, so such
 * requests are left out when the request holds no coordinate (a figure with decimals or degrees).
 */
export const UNSTATED_BOX = 'gold keeps a box of coordinates the request does not state';

const COORDINATE = /-?\d+[.,]\d+|\d+\s*°/;

/** Whether the gold's area is a literal box of coordinates the request does not write. */
export function unstatedBox(program: Program, request: string): boolean {
  const literal = (b: [number, number, number, number] | 'view' | undefined) => Array.isArray(b);
  const boxed = literal(program.globalBox) || statements(program.stmts).some((st) => st.filters.some((f) => f.kind === 'bbox' && literal(f.box)));
  return boxed && !COORDINATE.test(request);
}
