import { createHash } from 'node:crypto';
import { QUERY_MAX_CHARS, type ComputeResponse } from '../../shared/service/compute';
import type { ImageryResponse } from '../../shared/service/imagery';
import { responseItems } from '../../shared/service/items';
import type { StreamResponse } from '../../shared/service/stream';
import type { CacheDb } from './db';
import { FEATURE_ID_SPAN } from './migrations';
import { insertRows } from './insert-rows';
import { itemColumns } from './item-columns';
import { itemId, json, num, rawValue, rec, str, type QueryInsert } from './rows';
import { geometryBoxes, zOrder, type BBox } from './spatial';
import { markWordsPending } from './words';
import type { Outcome, QueryKind, QueryMeta, RawBody, StoredError, UploadInput } from './types';

/** Features per R*Tree entry (see migrations.ts). */
export const RUN = 64;

/**
 * What storing needs of a response's items, read in one pass in response order (index = seq):
 * the columns of their feature rows, the fields their kind's own table reads, their boxes, and
 * the storage order (a Z-order of box centres, so runs of consecutive rows are compact).
 */
interface ItemRows {
  ids: string[];
  names: (string | null)[];
  addresses: (string | null)[];
  scores: (number | null)[];
  fields: Record<string, unknown>[];
  boxes: Float64Array;
  extent: BBox;
  order: Uint32Array;
}

/** The items of a response as objects (a non-object item keeps its place as an empty one). */
const itemsOf = (kind: QueryKind, body: unknown): Record<string, unknown>[] => responseItems(kind, body).map(rec);

// Storing a response: one transaction per response, its items indexed for search and maps.

export function storeCompute(c: CacheDb, meta: QueryMeta, body: ComputeResponse, raw: RawBody): number {
  const features = body.results.features;
  return store(
    c,
    'compute',
    meta,
    {
      query_text: str(meta.request['query']) ?? body.query,
      outcome: 'ok',
      remote_id: body.id,
      search_id: str(meta.request['search_id']),
      answer_status: body.answer.status,
      answer_content: body.answer.content,
      answer_error_json: json(body.answer.error ?? null),
      warnings_json: json(body.warnings),
      usage_json: json(body.usage),
      usage_meters: num(body.usage.meters),
      number_matched: body.results.numberMatched,
      number_returned: body.results.numberReturned,
      raw_response: rawValue(raw),
    },
    features as unknown as Record<string, unknown>[],
  );
}

export function storeStream(c: CacheDb, meta: QueryMeta, body: StreamResponse, raw: RawBody): number {
  const b = body as Record<string, unknown>;
  const data = rec(b['data']);
  const ok = body.isSuccess === true;
  return store(
    c,
    'stream',
    meta,
    {
      query_text: str(meta.request['query']) ?? str(data['query']) ?? '',
      outcome: ok ? 'ok' : 'failed',
      remote_id: str(b['result_id']),
      year: str(b['year']) ?? str(data['year']),
      server_duration_ms: num(data['duration_ms']),
      raw_response: rawValue(raw),
    },
    ok ? itemsOf('stream', body) : [],
  );
}

export function storeImagery(c: CacheDb, meta: QueryMeta, body: ImageryResponse, raw: RawBody): number {
  const b = body as Record<string, unknown>;
  const ok = body.isSuccess === true;
  return store(
    c,
    'imagery',
    meta,
    {
      query_text: str(meta.request['query']) ?? '',
      outcome: ok ? 'ok' : 'failed',
      remote_id: str(b['result_id']),
      page: num(b['page']),
      page_total: num(b['pageTotal']),
      region: str(b['region']),
      region_id: str(b['region_id']),
      raw_response: rawValue(raw),
    },
    ok ? itemsOf('imagery', body) : [],
  );
}

/** A request that produced no usable body (HTTP error, timeout, malformed JSON): kept for history. */
export function storeError(c: CacheDb, kind: QueryKind, meta: QueryMeta, error: StoredError, raw: RawBody | null = null): number {
  return store(
    c,
    kind,
    meta,
    {
      query_text: str(meta.request['query']) ?? '',
      outcome: 'error',
      search_id: str(meta.request['search_id']),
      http_status: error.status ?? null,
      error_json: JSON.stringify(error),
      raw_response: rawValue(raw),
    },
    [],
  );
}

function store(c: CacheDb, 
  kind: QueryKind,
  meta: QueryMeta,
  fields: Partial<QueryInsert> & { query_text: string; outcome: Outcome },
  items: Record<string, unknown>[],
): number {
  if (items.length >= FEATURE_ID_SPAN) throw new Error(`Response has too many items (${items.length})`);
  // A request with a longer text is refused before it is sent, so none is a stored request; a
  // text taken from an answer (a request without one) is cut to the same length.
  const asked = str(meta.request['query']);
  if (asked && asked.length > QUERY_MAX_CHARS)
    throw new RangeError(`A query text of ${asked.length} characters is past the limit (${QUERY_MAX_CHARS}) and is not stored`);
  const row: QueryInsert = {
    kind,
    profile_id: meta.profileId,
    request_json: JSON.stringify(meta.request),
    remote_id: null,
    search_id: null,
    rerun_of: meta.rerunOf ?? null,
    answer_status: null,
    answer_content: null,
    answer_error_json: null,
    warnings_json: null,
    usage_json: null,
    usage_meters: null,
    number_matched: null,
    number_returned: null,
    page: null,
    page_total: null,
    region: null,
    region_id: null,
    year: null,
    started_at: meta.startedAt,
    finished_at: meta.finishedAt,
    duration_ms: meta.finishedAt - meta.startedAt,
    server_duration_ms: null,
    http_status: null,
    error_json: null,
    raw_response: null,
    feature_count: 0,
    minx: null,
    miny: null,
    maxx: null,
    maxy: null,
    ...fields,
    query_text: fields.query_text.slice(0, QUERY_MAX_CHARS),
  };
  const read = items.length ? readItems(kind, items) : null;
  const hasExtent = read !== null && read.extent[0] !== Infinity;
  row.feature_count = items.length;
  [row.minx, row.miny, row.maxx, row.maxy] = hasExtent ? read.extent : [null, null, null, null];
  const id = c.db.transaction(() => {
    const id = Number(
      c.stmt(
        `INSERT INTO queries (kind, profile_id, query_text, request_json, outcome, remote_id, search_id, rerun_of,
           answer_status, answer_content, answer_error_json, warnings_json, usage_json, usage_meters,
           number_matched, number_returned, page, page_total, region, region_id, year,
           started_at, finished_at, duration_ms, server_duration_ms, http_status, error_json, raw_response,
           feature_count, minx, miny, maxx, maxy)
         VALUES (@kind, @profile_id, @query_text, @request_json, @outcome, @remote_id, @search_id, @rerun_of,
           @answer_status, @answer_content, @answer_error_json, @warnings_json, @usage_json, @usage_meters,
           @number_matched, @number_returned, @page, @page_total, @region, @region_id, @year,
           @started_at, @finished_at, @duration_ms, @server_duration_ms, @http_status, @error_json, @raw_response,
           @feature_count, @minx, @miny, @maxx, @maxy)`,
      ).run(row).lastInsertRowid,
    );
    if (hasExtent)
      c.stmt('INSERT INTO queries_rtree (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)').run(id, row.minx, row.maxx, row.miny, row.maxy);
    if (read) insertItems(c, kind, id, read);
    // Its words are indexed later, many entries at a time (words.ts).
    markWordsPending(c, id);
    if (meta.uploads?.length) insertUploads(c, id, meta.uploads);
    return id;
  })();
  if (!c.db.inTransaction) c.afterWrite();
  return id;
}

/** The items' columns and layout (computed outside the transaction). */
function readItems(kind: QueryKind, items: Record<string, unknown>[]): ItemRows {
  const n = items.length;
  const ids = new Array<string>(n);
  const names = new Array<string | null>(n);
  const addresses = new Array<string | null>(n);
  const scores = new Array<number | null>(n);
  const fields = new Array<Record<string, unknown>>(n);
  const geometries = new Array<unknown>(n);
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    // Compute and stream items are GeoJSON features; imagery records carry fields at the top.
    const p = kind === 'imagery' ? item : rec(item['properties']);
    ids[i] = itemId(item, i);
    names[i] = kind === 'compute' ? str(p['name']) : kind === 'stream' ? str(p['feature_name']) : null;
    addresses[i] = str(p['address']);
    scores[i] = kind === 'compute' ? num(p['score']) : null;
    fields[i] = p;
    geometries[i] = item['geometry'];
  }
  const boxes = geometryBoxes(geometries);
  const extent: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (let o = 0; o < boxes.length; o += 4) {
    if (boxes[o]! < extent[0]) extent[0] = boxes[o]!;
    if (boxes[o + 1]! < extent[1]) extent[1] = boxes[o + 1]!;
    if (boxes[o + 2]! > extent[2]) extent[2] = boxes[o + 2]!;
    if (boxes[o + 3]! > extent[3]) extent[3] = boxes[o + 3]!;
  }
  return { ids, names, addresses, scores, fields, boxes, extent, order: zOrder(boxes, extent) };
}

const FEATURE_ROW = 'INSERT INTO features (id, query_id, seq, feature_id, name, address, minx, miny, maxx, maxy, score)';
const RTREE_ROW = 'INSERT INTO features_rtree (id, minx, maxx, miny, maxy, last_id)';
const RUN_ROW = 'INSERT INTO feature_runs (id, last_id, minx, miny, maxx, maxy)';

/** Writes the items in storage order and their runs (their words are indexed later, see words.ts). */
function insertItems(c: CacheDb, kind: QueryKind, queryId: number, items: ItemRows): void {
  const { boxes, order } = items;
  const n = order.length;
  const base = queryId * FEATURE_ID_SPAN;
  // NaN (no geometry) binds as NULL.
  const box = (v: number) => (v === v ? v : null);
  const rows = new Array<unknown>(n * 11);
  for (let r = 0, v = 0; r < n; r++) {
    const seq = order[r]!;
    const o = seq * 4;
    rows[v++] = base + r;
    rows[v++] = queryId;
    rows[v++] = seq;
    rows[v++] = items.ids[seq];
    rows[v++] = items.names[seq];
    rows[v++] = items.addresses[seq];
    rows[v++] = box(boxes[o]!);
    rows[v++] = box(boxes[o + 1]!);
    rows[v++] = box(boxes[o + 2]!);
    rows[v++] = box(boxes[o + 3]!);
    rows[v++] = items.scores[seq];
  }
  insertRows(c, FEATURE_ROW, 11, rows);
  // Stream and imagery items keep their own fields in a table of their kind (see item-columns.ts).
  const own = itemColumns(c.db, kind);
  if (own) {
    const ownRows: unknown[] = [];
    for (let r = 0; r < n; r++) for (const value of own.values(base + r, items.fields[order[r]!]!)) ownRows.push(value);
    insertRows(c, own.head, own.width, ownRows);
  }
  // One R*Tree entry (and one feature_runs row) per run of RUN rows. The R*Tree takes its rows one
  // statement each: a VALUES list into it measured slower, not faster (the module writes each
  // row's nodes either way).
  const insRun = c.stmt(`${RTREE_ROW} VALUES (?, ?, ?, ?, ?, ?)`);
  const runs: number[] = [];
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(n, start + RUN) - 1;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let r = start; r <= end; r++) {
      const o = order[r]! * 4;
      // Comparisons with NaN are false, so items without geometry drop out by themselves.
      if (boxes[o]! < x0) x0 = boxes[o]!;
      if (boxes[o + 1]! < y0) y0 = boxes[o + 1]!;
      if (boxes[o + 2]! > x1) x1 = boxes[o + 2]!;
      if (boxes[o + 3]! > y1) y1 = boxes[o + 3]!;
    }
    if (x0 !== Infinity) {
      insRun.run(base + start, x0, x1, y0, y1, base + end);
      runs.push(base + start, base + end, x0, y0, x1, y1);
    }
  }
  insertRows(c, RUN_ROW, 6, runs);
}

function insertUploads(c: CacheDb, queryId: number, uploads: UploadInput[]): void {
  const ins = c.stmt(
    `INSERT INTO uploads (sha256, name, size, content_type, content, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (sha256) DO NOTHING`,
  );
  const find = c.stmt('SELECT id FROM uploads WHERE sha256 = ?').pluck();
  const link = c.stmt(
    'INSERT OR REPLACE INTO query_uploads (query_id, upload_id, field, position, name) VALUES (?, ?, ?, ?, ?)',
  );
  const positions = { files: 0, images: 0 };
  for (const u of uploads) {
    const sha = createHash('sha256').update(u.content).digest('hex');
    ins.run(sha, u.name, u.content.byteLength, u.contentType ?? null, Buffer.from(u.content), Date.now());
    link.run(queryId, find.get(sha) as number, u.field, positions[u.field]++, u.name);
  }
}
