import pointInPolygon from 'point-in-polygon-hao';
import type { CacheDb } from './db';
import { boxAgainstRing } from './box-in-ring';
import { FEATURE_ID_SPAN } from './migrations';
import { summary, type SummaryRow } from './rows';
import { ftsTerms } from './search';
import type { BBox } from './spatial';
import type { ListFilter, QuerySummary } from './types';

// History by words, kind, date, map extent and drawn area, newest first.

// What a history row shows: no request, warning or error JSON is read for a list.
const LIST_COLUMNS = `id, kind, profile_id, query_text, outcome, remote_id, search_id, rerun_of,
  answer_status, answer_content, usage_meters, number_matched, number_returned, feature_count, page,
  page_total, region, started_at, finished_at, duration_ms, server_duration_ms, http_status, minx, miny, maxx, maxy`;

// Candidates are read newest first in pages that grow, so a common filter stops after one small page.
const FIRST_PAGE = 64;
// Entries in a set up to which looking each up and sorting beats walking the time index.
const FEW = 256;

interface Candidate {
  id: number;
  started_at: number;
  minx: number | null;
  miny: number | null;
  maxx: number | null;
  maxy: number | null;
}

/**
 * Entries matching every filter, newest first. Kind, profile, dates and the entries' own extents
 * (their R*Tree) pick candidates in SQL; each candidate, newest first, is then checked for words
 * (its query text, else an FTS5 seek in its own features' rowid range) and place (its feature
 * runs, then the features of runs that touch the area), until one more than the page is found.
 * The cost follows the entries looked at, not the features cached.
 */
export function list(c: CacheDb, filter: ListFilter = {}): { items: QuerySummary[]; hasMore: boolean } {
  const limit = filter.limit ?? 50;
  const offset = filter.offset ?? 0;
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.kind) {
    where.push('q.kind = @kind');
    params['kind'] = filter.kind;
  }
  if (filter.profileId) {
    where.push('q.profile_id = @profile');
    params['profile'] = filter.profileId;
  }
  if (filter.from !== undefined) {
    where.push('q.started_at >= @from');
    params['from'] = filter.from;
  }
  if (filter.to !== undefined) {
    where.push('q.started_at <= @to');
    params['to'] = filter.to;
  }
  const box = areaBox(filter.bbox, filter.polygon);
  const terms = filter.text ? ftsTerms(filter.text) : [];
  const fts = terms.length ? terms.join(' ') : null;
  if (!box && !fts) {
    params['limit'] = limit + 1;
    params['offset'] = offset;
    const rows = c.stmt(
      `SELECT ${LIST_COLUMNS} FROM queries q ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
       ORDER BY q.started_at DESC, q.id DESC LIMIT @limit OFFSET @offset`,
    ).all(params) as SummaryRow[];
    return { items: rows.slice(0, limit).map(summary), hasMore: rows.length > limit };
  }
  // A small set of entries (in the area, or holding the word) drives the statement: looked up by
  // id and sorted. Otherwise the time index is walked and the sets are tested ('+' keeps SQLite
  // from driving by them). Several words are checked per entry, cheaply only in time order.
  let driven = terms.length > 1;
  const drive = (set: string): string => {
    const few = !driven && (c.stmt(`SELECT count(*) FROM (${set} LIMIT ${FEW + 1})`).pluck().get(params) as number) <= FEW;
    driven ||= few;
    return `${few ? '' : '+'}q.id IN (${set})`;
  };
  if (box) {
    [params['minx'], params['miny'], params['maxx'], params['maxy']] = box;
    where.push(drive('SELECT id FROM queries_rtree WHERE maxx >= @minx AND minx <= @maxx AND maxy >= @miny AND miny <= @maxy'));
  }
  if (fts) {
    params['fts'] = fts;
    // Entries holding every word somewhere (their text, or any of their items): one doclist of
    // entries. For one word that is the answer.
    where.push(drive('SELECT rowid FROM entry_words WHERE entry_words MATCH @fts'));
    // Several words must meet in the entry's text or in one item: checked in its own features'
    // rowid range, inside the statement, where FTS5 keeps its cursor from one entry to the next.
    if (terms.length > 1)
      where.push(`(q.id IN (SELECT rowid FROM queries_fts WHERE queries_fts MATCH @fts)
        OR EXISTS (SELECT 1 FROM features_fts WHERE features_fts MATCH @fts
          AND features_fts.rowid BETWEEN q.id * ${FEATURE_ID_SPAN} AND q.id * ${FEATURE_ID_SPAN} + ${FEATURE_ID_SPAN - 1}))`);
  }
  // Keyset paging over (started_at, id): each page starts below the last candidate seen.
  where.push('(q.started_at, q.id) < (@afterAt, @afterId)');
  const candidates = c.stmt(
    `SELECT q.id, q.started_at, q.minx, q.miny, q.maxx, q.maxy FROM queries q WHERE ${where.join(' AND ')}
     ORDER BY q.started_at DESC, q.id DESC LIMIT @page`,
  );
  const place = box ? placeCheck(c, box, filter.polygon) : null;
  const want = offset + limit + 1;
  const found: number[] = [];
  params['afterAt'] = Number.MAX_SAFE_INTEGER;
  params['afterId'] = Number.MAX_SAFE_INTEGER;
  for (let grow = FIRST_PAGE; found.length < want; grow *= 4) {
    // Without a place to check every candidate is an answer: ask for no more than are missing.
    const page = place ? grow : want - found.length;
    params['page'] = page;
    const rows = candidates.all(params) as Candidate[];
    for (const q of rows) {
      if (place && !place(q)) continue;
      found.push(q.id);
      if (found.length === want) break;
    }
    if (rows.length < page) break;
    const last = rows.at(-1)!;
    params['afterAt'] = last.started_at;
    params['afterId'] = last.id;
  }
  const row = c.stmt(`SELECT ${LIST_COLUMNS} FROM queries WHERE id = ?`);
  const items = found.slice(offset, offset + limit).map((id) => summary(row.get(id) as SummaryRow));
  return { items, hasMore: found.length > offset + limit };
}

/**
 * Whether an entry has a feature whose box meets `box` and, with a drawn area, whose box centre
 * lies inside the ring (its edge counts as inside). Whole runs of features are settled by their
 * box where it can be: a run inside `box` (and inside the ring) matches, a run outside the ring
 * is passed over; only features of runs across an edge are read.
 */
function placeCheck(c: CacheDb, box: BBox, ring: [number, number][] | undefined): (q: Candidate) => boolean {
  const [minx, miny, maxx, maxy] = box;
  const area = ring?.length ? closed(ring) : null;
  const within = (b: BBox) => b[0] >= minx && b[2] <= maxx && b[1] >= miny && b[3] <= maxy;
  // A box that no edge meets and that is within `box` settles the entry or run at once.
  const settle = (b: BBox): boolean | null => {
    const side = area ? boxAgainstRing(b, area) : 'inside';
    if (side === 'outside') return false;
    return side === 'inside' && within(b) ? true : null;
  };
  // Positional parameters: binding an object of names costs twice as much per call here.
  const runs = c
    .stmt(
      `SELECT id, last_id, minx, miny, maxx, maxy FROM feature_runs
       WHERE id BETWEEN ? AND ? AND maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?`,
    )
    .raw();
  const features = c
    .stmt(
      `SELECT minx, miny, maxx, maxy FROM features
       WHERE id BETWEEN ? AND ? AND maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?`,
    )
    .raw();
  // Without a drawn area the first feature in the box settles it; SQLite stops there.
  const anyInBox = c
    .stmt(
      `SELECT 1 FROM feature_runs r JOIN features f ON f.id BETWEEN r.id AND r.last_id
       WHERE r.id BETWEEN ? AND ? AND r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ?
         AND f.maxx >= ? AND f.minx <= ? AND f.maxy >= ? AND f.miny <= ? LIMIT 1`,
    )
    .pluck();
  const inRing = (f: number[]) => pointInPolygon([(f[0]! + f[2]!) / 2, (f[1]! + f[3]!) / 2], [area!]) !== false;
  return (q) => {
    if (q.minx === null) return false;
    const whole = settle([q.minx, q.miny!, q.maxx!, q.maxy!]);
    if (whole !== null) return whole;
    const lo = q.id * FEATURE_ID_SPAN;
    const hi = lo + FEATURE_ID_SPAN - 1;
    if (!area) return anyInBox.get(lo, hi, minx, maxx, miny, maxy, minx, maxx, miny, maxy) !== undefined;
    // Runs settled by their box first; features are read only if none was.
    const across: number[][] = [];
    for (const r of runs.all(lo, hi, minx, maxx, miny, maxy) as number[][]) {
      const run = settle([r[2]!, r[3]!, r[4]!, r[5]!]);
      if (run === true) return true;
      if (run === null) across.push(r);
    }
    for (const r of across) if ((features.all(r[0]!, r[1]!, minx, maxx, miny, maxy) as number[][]).some(inRing)) return true;
    return false;
  };
}

function closed(ring: [number, number][]): [number, number][] {
  const [x0, y0] = ring[0]!;
  const [xn, yn] = ring.at(-1)!;
  return x0 !== xn || y0 !== yn ? [...ring, ring[0]!] : ring;
}

/** The box both filters allow: the extent, the ring's box, or their overlap (empty: nothing). */
function areaBox(bbox: BBox | undefined, ring: [number, number][] | undefined): BBox | null {
  let box: BBox | null = bbox ? [...bbox] : null;
  if (ring?.length) {
    const r: BBox = [Infinity, Infinity, -Infinity, -Infinity];
    for (const [x, y] of ring) {
      r[0] = Math.min(r[0], x);
      r[1] = Math.min(r[1], y);
      r[2] = Math.max(r[2], x);
      r[3] = Math.max(r[3], y);
    }
    box = box ? [Math.max(box[0], r[0]), Math.max(box[1], r[1]), Math.min(box[2], r[2]), Math.min(box[3], r[3])] : r;
  }
  // Disjoint extent and area: a box no feature can overlap (the query still runs, and finds none).
  if (box && (box[0] > box[2] || box[1] > box[3])) return [1, 1, 0, 0];
  return box;
}
