import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import Database, { type Database as Db, type Statement } from 'better-sqlite3';
import type { ComputeResponse } from '../../shared/service/compute';
import type { StreamResponse } from '../../shared/service/stream';
import type { ImageryResponse } from '../../shared/service/imagery';
import { FEATURE_ID_SPAN, migrate } from './migrations';
import { geometryBoxes, zOrder, type BBox } from './spatial';
import type {
  CacheStats,
  FeatureDiff,
  FeatureHit,
  ListFilter,
  MediaEntry,
  Outcome,
  QueryKind,
  QueryMeta,
  QueryRecord,
  QuerySummary,
  RawBody,
  StoredError,
  ThreadNode,
  UploadInput,
} from './types';

export type * from './types';

/** Features per R*Tree entry (see migrations.ts). */
const RUN = 64;
/** Idle time after the last write before the WAL is checkpointed, and the size that forces one. */
const CHECKPOINT_IDLE_MS = 1000;
const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** A stored query as read back: the inserted columns (less two that lists never read) plus its id. */
type QueryRow = Omit<QueryInsert, 'region_id' | 'year' | 'raw_response'> & {
  id: number;
  raw_response?: string | Buffer | null;
};

// Everything but the raw body: lists never pay for reading it.
const SUMMARY_COLUMNS = `id, kind, profile_id, query_text, request_json, outcome, remote_id, search_id, rerun_of,
  answer_status, answer_content, answer_error_json, warnings_json, usage_json, usage_meters,
  number_matched, number_returned, feature_count, page, page_total, region, started_at, finished_at,
  duration_ms, server_duration_ms, http_status, error_json, minx, miny, maxx, maxy`;

interface Layout {
  boxes: Float64Array;
  extent: BBox;
  order: Uint32Array;
}

interface QueryInsert {
  kind: QueryKind;
  profile_id: string;
  query_text: string;
  request_json: string;
  outcome: Outcome;
  remote_id: string | null;
  search_id: string | null;
  rerun_of: number | null;
  answer_status: string | null;
  answer_content: string | null;
  answer_error_json: string | null;
  warnings_json: string | null;
  usage_json: string | null;
  usage_meters: number | null;
  number_matched: number | null;
  number_returned: number | null;
  page: number | null;
  page_total: number | null;
  region: string | null;
  region_id: string | null;
  year: string | null;
  started_at: number;
  finished_at: number;
  duration_ms: number;
  server_duration_ms: number | null;
  http_status: number | null;
  error_json: string | null;
  raw_response: string | Buffer | null;
  feature_count: number;
  minx: number | null;
  miny: number | null;
  maxx: number | null;
  maxy: number | null;
}

const rawValue = (raw: RawBody | null): string | Buffer | null =>
  raw === null || typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown): number | null => (typeof v === 'boolean' ? (v ? 1 : 0) : null);
const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));
const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * Turns a search box text into an FTS5 expression: every word must match. A word written with a
 * trailing `*` matches as a prefix; plain words match whole tokens, which FTS5 reads lazily and
 * so stays fast with LIMIT over millions of rows (prefix terms merge every matching doclist).
 * Words are split as the unicode61 tokenizer splits them, and quoted, so user input never becomes
 * a phrase or FTS syntax.
 */
export function ftsExpression(text: string): string | null {
  const terms: string[] = [];
  for (const chunk of text.split(/\s+/)) {
    const tokens = chunk.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
    tokens.forEach((t, i) => terms.push(i === tokens.length - 1 && chunk.endsWith('*') ? `"${t}"*` : `"${t}"`));
  }
  return terms.length ? terms.join(' ') : null;
}

/** The items of a response of any kind, in response order. */
export function responseItems(kind: QueryKind, body: unknown): Record<string, unknown>[] {
  const b = rec(body);
  let items: unknown;
  if (kind === 'compute') items = rec(b['results'])['features'];
  else if (kind === 'stream') items = rec(rec(rec(b['data'])['geojson']))['features'];
  else items = b['data'];
  return Array.isArray(items) ? items.map(rec) : [];
}

function itemId(item: Record<string, unknown>, seq: number): string {
  const id = item['id'];
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : `#${seq}`;
}

function summary(r: QueryRow): QuerySummary {
  return {
    id: r.id,
    kind: r.kind,
    profileId: r.profile_id,
    queryText: r.query_text,
    outcome: r.outcome,
    remoteId: r.remote_id,
    searchId: r.search_id,
    rerunOf: r.rerun_of,
    answerStatus: r.answer_status,
    answerContent: r.answer_content,
    featureCount: r.feature_count,
    numberMatched: r.number_matched,
    numberReturned: r.number_returned,
    usageMeters: r.usage_meters,
    page: r.page,
    pageTotal: r.page_total,
    region: r.region,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    durationMs: r.duration_ms,
    serverDurationMs: r.server_duration_ms,
    httpStatus: r.http_status,
    bbox: r.minx === null ? null : [r.minx, r.miny!, r.maxx!, r.maxy!],
  };
}

export interface CacheOptions {
  /** Open read-only (no migrations); used by tools and tests that inspect a database. */
  readonly?: boolean;
}

/**
 * The offline cache: every query and its response, searchable by words, area and date.
 * Each stored response is one transaction, so a crash leaves either all of it or none.
 */
export class Cache {
  readonly db: Db;
  private readonly statements = new Map<string, Statement>();
  private checkpointTimer: NodeJS.Timeout | null = null;

  private constructor(
    readonly file: string,
    opts: CacheOptions,
  ) {
    this.db = new Database(file, { readonly: opts.readonly ?? false });
    if (!opts.readonly) {
      // Only takes effect on a new file: 16 KiB pages keep a large response body in a quarter of
      // the overflow pages (and WAL frames) that 4 KiB pages need.
      this.db.pragma('page_size = 16384');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
    }
    this.db.pragma('busy_timeout = 5000');
    // 16 MiB of page cache: one large response plus its index pages fit without spilling.
    this.db.pragma('cache_size = -16384');
    if (!opts.readonly) {
      // Checkpoints copy the WAL into the main file and sync it; run automatically they land on
      // every ~10th stored response. They run when writes pause instead (see afterWrite).
      this.db.pragma('wal_autocheckpoint = 0');
      migrate(this.db);
    }
  }

  /** Schedules a checkpoint for when writes pause; checkpoints at once if the WAL grew large. */
  private afterWrite(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    let walBytes = 0;
    try {
      walBytes = statSync(this.file + '-wal').size;
    } catch {
      return; // in-memory database or no WAL
    }
    if (walBytes > WAL_CHECKPOINT_BYTES) {
      this.checkpoint();
      return;
    }
    this.checkpointTimer = setTimeout(() => this.checkpoint(), CHECKPOINT_IDLE_MS);
    this.checkpointTimer.unref();
  }

  /** Copies the WAL into the main file (PASSIVE: never waits for other connections). */
  checkpoint(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    if (this.db.open && !this.db.inTransaction) this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  static open(file: string, opts: CacheOptions = {}): Cache {
    return new Cache(file, opts);
  }

  close(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    if (this.db.open) this.db.close();
  }

  // Statements are prepared on first use so opening the cache stays cheap.
  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  // ---------------------------------------------------------------- ingest

  storeCompute(meta: QueryMeta, body: ComputeResponse, raw: RawBody): number {
    const features = body.results.features;
    return this.store(
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

  storeStream(meta: QueryMeta, body: StreamResponse, raw: RawBody): number {
    const b = body as Record<string, unknown>;
    const data = rec(b['data']);
    const ok = body.isSuccess === true;
    return this.store(
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
      ok ? responseItems('stream', body) : [],
    );
  }

  storeImagery(meta: QueryMeta, body: ImageryResponse, raw: RawBody): number {
    const b = body as Record<string, unknown>;
    const ok = body.isSuccess === true;
    return this.store(
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
      ok ? responseItems('imagery', body) : [],
    );
  }

  /** A request that produced no usable body (HTTP error, timeout, malformed JSON): kept for history. */
  storeError(kind: QueryKind, meta: QueryMeta, error: StoredError, raw: RawBody | null = null): number {
    return this.store(
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

  /** Runs `fn` in one transaction (bulk loads: many responses, one commit). */
  bulk<T>(fn: () => T): T {
    const out = this.db.transaction(fn)();
    this.afterWrite();
    return out;
  }

  private store(
    kind: QueryKind,
    meta: QueryMeta,
    fields: Partial<QueryInsert> & { query_text: string; outcome: Outcome },
    items: Record<string, unknown>[],
  ): number {
    if (items.length >= FEATURE_ID_SPAN) throw new Error(`Response has too many items (${items.length})`);
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
    };
    const layout = items.length ? this.layout(items) : null;
    const hasExtent = layout !== null && layout.extent[0] !== Infinity;
    row.feature_count = items.length;
    [row.minx, row.miny, row.maxx, row.maxy] = hasExtent ? layout.extent : [null, null, null, null];
    const id = this.db.transaction(() => {
      const id = Number(
        this.stmt(
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
      this.stmt('INSERT INTO queries_fts (rowid, query_text) VALUES (?, ?)').run(id, row.query_text);
      if (layout) this.insertItems(kind, id, items, layout);
      if (meta.uploads?.length) this.insertUploads(id, meta.uploads);
      return id;
    })();
    if (!this.db.inTransaction) this.afterWrite();
    return id;
  }

  /** Boxes, overall extent and storage order of a response's items (computed outside the transaction). */
  private layout(items: Record<string, unknown>[]): Layout {
    const n = items.length;
    const geometries = new Array<unknown>(n);
    for (let i = 0; i < n; i++) geometries[i] = items[i]!['geometry'];
    const boxes = geometryBoxes(geometries);
    const extent: BBox = [Infinity, Infinity, -Infinity, -Infinity];
    for (let o = 0; o < boxes.length; o += 4) {
      if (boxes[o]! < extent[0]) extent[0] = boxes[o]!;
      if (boxes[o + 1]! < extent[1]) extent[1] = boxes[o + 1]!;
      if (boxes[o + 2]! > extent[2]) extent[2] = boxes[o + 2]!;
      if (boxes[o + 3]! > extent[3]) extent[3] = boxes[o + 3]!;
    }
    return { boxes, extent, order: zOrder(boxes, extent) };
  }

  private insertItems(kind: QueryKind, queryId: number, items: Record<string, unknown>[], { boxes, order }: Layout): void {
    const n = items.length;
    const base = queryId * FEATURE_ID_SPAN;
    const insFeature = this.stmt(
      `INSERT INTO features (id, query_id, seq, feature_id, name, address, minx, miny, maxx, maxy, score)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // NaN (no geometry) binds as NULL.
    const box = (v: number) => (v === v ? v : null);
    const insObs =
      kind === 'stream'
        ? this.stmt(
            `INSERT INTO observations (id, date, year, month, source, owner, image_url, is_video, video_id, video_url,
               duration, interactive) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
        : null;
    const insImg =
      kind === 'imagery'
        ? this.stmt('INSERT INTO imagery_records (id, date, compass, interactive, image) VALUES (?, ?, ?, ?, ?)')
        : null;
    for (let r = 0; r < n; r++) {
      const seq = order[r]!;
      const item = items[seq]!;
      const o = seq * 4;
      const rowId = base + r;
      // Compute and stream items are GeoJSON features; imagery records carry fields at the top.
      const p = kind === 'imagery' ? item : rec(item['properties']);
      const name = kind === 'compute' ? str(p['name']) : kind === 'stream' ? str(p['feature_name']) : null;
      insFeature.run(
        rowId, queryId, seq, itemId(item, seq), name, str(p['address']),
        box(boxes[o]!), box(boxes[o + 1]!), box(boxes[o + 2]!), box(boxes[o + 3]!),
        kind === 'compute' ? num(p['score']) : null,
      );
      if (insObs)
        insObs.run(
          rowId, str(p['date']), str(p['year']), str(p['month']), str(p['source']), str(p['owner']),
          str(p['image_url']), bool(p['is_video']), str(p['video_id']), str(p['video_url']),
          num(p['duration']), bool(p['interactive']),
        );
      if (insImg) insImg.run(rowId, str(p['date']), str(p['compass']), bool(p['interactive']), str(p['image']));
    }
    const insRun = this.stmt('INSERT INTO features_rtree (id, minx, maxx, miny, maxy, last_id) VALUES (?, ?, ?, ?, ?, ?)');
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
      if (x0 !== Infinity) insRun.run(base + start, x0, x1, y0, y1, base + end);
    }
    this.stmt(
      'INSERT INTO features_fts (rowid, name, address) SELECT id, name, address FROM features WHERE id BETWEEN ? AND ?',
    ).run(base, base + n - 1);
  }

  private insertUploads(queryId: number, uploads: UploadInput[]): void {
    const ins = this.stmt(
      `INSERT INTO uploads (sha256, name, size, content_type, content, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (sha256) DO NOTHING`,
    );
    const find = this.stmt('SELECT id FROM uploads WHERE sha256 = ?').pluck();
    const link = this.stmt(
      'INSERT OR REPLACE INTO query_uploads (query_id, upload_id, field, position, name) VALUES (?, ?, ?, ?, ?)',
    );
    const positions = { files: 0, images: 0 };
    for (const u of uploads) {
      const sha = createHash('sha256').update(u.content).digest('hex');
      ins.run(sha, u.name, u.content.byteLength, u.contentType ?? null, Buffer.from(u.content), Date.now());
      link.run(queryId, find.get(sha) as number, u.field, positions[u.field]++, u.name);
    }
  }

  // ---------------------------------------------------------------- reads

  get(id: number): QueryRecord | null {
    const r = this.stmt(`SELECT ${SUMMARY_COLUMNS}, raw_response FROM queries WHERE id = ?`).get(id) as
      | QueryRow
      | undefined;
    if (!r) return null;
    const uploads = this.stmt(
      `SELECT qu.field, qu.name, u.size, u.sha256 FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id
       WHERE qu.query_id = ? ORDER BY qu.field, qu.position`,
    ).all(id) as QueryRecord['uploads'];
    return {
      ...summary(r),
      request: parse(r.request_json),
      answerError: parse(r.answer_error_json),
      warnings: (parse(r.warnings_json) as unknown[] | null) ?? [],
      usage: parse(r.usage_json),
      error: parse(r.error_json) as StoredError | null,
      uploads,
      raw: r.raw_response == null ? null : typeof r.raw_response === 'string' ? r.raw_response : r.raw_response.toString('utf8'),
    };
  }

  /** The upload bytes kept with a query (for re-sending on rerun). */
  uploadsOf(queryId: number): UploadInput[] {
    const rows = this.stmt(
      `SELECT qu.field, qu.name, u.content_type, u.content FROM query_uploads qu JOIN uploads u ON u.id = qu.upload_id
       WHERE qu.query_id = ? ORDER BY qu.field, qu.position`,
    ).all(queryId) as { field: 'files' | 'images'; name: string; content_type: string | null; content: Buffer }[];
    return rows.map((r) => ({
      field: r.field,
      name: r.name,
      content: r.content,
      ...(r.content_type ? { contentType: r.content_type } : {}),
    }));
  }

  list(filter: ListFilter = {}): { items: QuerySummary[]; hasMore: boolean } {
    const where: string[] = [];
    // The span is written into the SQL: a bound JS number is a REAL and would make '/' inexact.
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
    const fts = filter.text ? ftsExpression(filter.text) : null;
    if (fts) {
      where.push(`(q.id IN (SELECT rowid FROM queries_fts WHERE queries_fts MATCH @fts)
        OR q.id IN (SELECT rowid / ${FEATURE_ID_SPAN} FROM features_fts WHERE features_fts MATCH @fts))`);
      params['fts'] = fts;
    }
    if (filter.bbox) {
      where.push(`q.id IN (SELECT r.id / ${FEATURE_ID_SPAN} FROM features_rtree r
        WHERE r.maxx >= @minx AND r.minx <= @maxx AND r.maxy >= @miny AND r.miny <= @maxy
          AND EXISTS (SELECT 1 FROM features f WHERE f.id BETWEEN r.id AND r.last_id
            AND f.maxx >= @minx AND f.minx <= @maxx AND f.maxy >= @miny AND f.miny <= @maxy))`);
      [params['minx'], params['miny'], params['maxx'], params['maxy']] = filter.bbox;
    }
    const limit = filter.limit ?? 50;
    params['limit'] = limit + 1;
    params['offset'] = filter.offset ?? 0;
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM queries q ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
      ORDER BY q.started_at DESC, q.id DESC LIMIT @limit OFFSET @offset`;
    // Filter combinations are few; the statement cache keeps one prepared statement per shape.
    const rows = this.stmt(sql).all(params) as QueryRow[];
    return { items: rows.slice(0, limit).map(summary), hasMore: rows.length > limit };
  }

  /** Features of one query in response order. */
  features(queryId: number): FeatureHit[] {
    const base = queryId * FEATURE_ID_SPAN;
    return this.hits(
      this.stmt(
        `SELECT id, query_id, seq, feature_id, name, address, minx, miny, maxx, maxy FROM features
         WHERE id BETWEEN ? AND ? ORDER BY seq`,
      ).all(base, base + FEATURE_ID_SPAN - 1),
    );
  }

  /** Features across all cached queries matching words and/or lying in a box. */
  searchFeatures(opts: { text?: string; bbox?: BBox; limit?: number }): FeatureHit[] {
    const limit = opts.limit ?? 100;
    const fts = opts.text ? ftsExpression(opts.text) : null;
    const cols = 'f.id, f.query_id, f.seq, f.feature_id, f.name, f.address, f.minx, f.miny, f.maxx, f.maxy';
    const inBox = 'f.maxx >= ? AND f.minx <= ? AND f.maxy >= ? AND f.miny <= ?';
    const b = opts.bbox;
    const boxArgs = b ? [b[0], b[2], b[1], b[3]] : [];
    if (fts && b)
      return this.hits(
        this.stmt(
          `SELECT ${cols} FROM features_fts JOIN features f ON f.id = features_fts.rowid
           WHERE features_fts MATCH ? AND ${inBox} LIMIT ?`,
        ).all(fts, ...boxArgs, limit),
      );
    if (fts)
      return this.hits(
        this.stmt(
          `SELECT ${cols} FROM features_fts JOIN features f ON f.id = features_fts.rowid
           WHERE features_fts MATCH ? LIMIT ?`,
        ).all(fts, limit),
      );
    if (b)
      return this.hits(
        this.stmt(
          `SELECT ${cols} FROM features_rtree r JOIN features f ON f.id BETWEEN r.id AND r.last_id
           WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? AND ${inBox} LIMIT ?`,
        ).all(b[0], b[2], b[1], b[3], ...boxArgs, limit),
      );
    return [];
  }

  private hits(rows: unknown[]): FeatureHit[] {
    return (rows as Record<string, number | string | null>[]).map((r) => ({
      rowId: r['id'] as number,
      queryId: r['query_id'] as number,
      seq: r['seq'] as number,
      featureId: r['feature_id'] as string,
      name: r['name'] as string | null,
      address: r['address'] as string | null,
      bbox: r['minx'] === null ? null : [r['minx'] as number, r['miny'] as number, r['maxx'] as number, r['maxy'] as number],
    }));
  }

  private summaryRow(id: number): QueryRow | undefined {
    return this.stmt(`SELECT ${SUMMARY_COLUMNS} FROM queries WHERE id = ?`).get(id) as QueryRow | undefined;
  }

  /**
   * The continuation tree around a query: up the search_id links to the root, then every query
   * that continued any node, breadth first. Parents are found by remote id.
   */
  thread(id: number): ThreadNode[] {
    let root = this.summaryRow(id);
    if (!root) return [];
    const byRemote = this.stmt(
      `SELECT ${SUMMARY_COLUMNS} FROM queries WHERE remote_id = ? ORDER BY started_at, id LIMIT 1`,
    );
    const seen = new Set<number>([root.id]);
    while (root.search_id) {
      const parent = byRemote.get(root.search_id) as QueryRow | undefined;
      if (!parent || seen.has(parent.id)) break;
      seen.add(parent.id);
      root = parent;
    }
    const children = this.stmt(
      `SELECT ${SUMMARY_COLUMNS} FROM queries WHERE search_id = ? ORDER BY started_at, id`,
    );
    const out: ThreadNode[] = [{ query: summary(root), parentId: null, depth: 0 }];
    const visited = new Set<number>([root.id]);
    for (let i = 0; i < out.length; i++) {
      const node = out[i]!;
      if (!node.query.remoteId) continue;
      for (const c of children.all(node.query.remoteId) as QueryRow[]) {
        if (visited.has(c.id)) continue;
        visited.add(c.id);
        out.push({ query: summary(c), parentId: node.query.id, depth: node.depth + 1 });
      }
    }
    return out;
  }

  /** Added, removed and changed items between two cached responses, matched by item id. */
  diff(oldId: number, newId: number): FeatureDiff {
    const a = this.get(oldId);
    const b = this.get(newId);
    if (!a || !b) throw new Error('Both queries must be cached');
    const index = (q: QueryRecord) => {
      const m = new Map<string, string>();
      if (q.raw === null || q.outcome !== 'ok') return m;
      let body: unknown;
      try {
        body = JSON.parse(q.raw);
      } catch {
        return m;
      }
      responseItems(q.kind, body).forEach((item, i) => m.set(itemId(item, i), JSON.stringify(item)));
      return m;
    };
    const before = index(a);
    const after = index(b);
    const out: FeatureDiff = { added: [], removed: [], changed: [], unchanged: 0 };
    for (const [id, text] of after) {
      const old = before.get(id);
      if (old === undefined) out.added.push(id);
      else if (old !== text) out.changed.push(id);
      else out.unchanged++;
    }
    for (const id of before.keys()) if (!after.has(id)) out.removed.push(id);
    return out;
  }

  // ---------------------------------------------------------------- maintenance

  delete(id: number): boolean {
    const deleted = this.db.transaction(() => {
      const row = this.stmt('SELECT id, query_text, feature_count FROM queries WHERE id = ?').get(id) as
        | { id: number; query_text: string; feature_count: number }
        | undefined;
      if (!row) return false;
      const lo = id * FEATURE_ID_SPAN;
      const hi = lo + FEATURE_ID_SPAN - 1;
      this.stmt(
        `INSERT INTO features_fts (features_fts, rowid, name, address)
         SELECT 'delete', id, name, address FROM features WHERE id BETWEEN ? AND ?`,
      ).run(lo, hi);
      // R*Tree lookups are by exact id only (a range would scan the whole tree): one per run.
      const delRun = this.stmt('DELETE FROM features_rtree WHERE id = ?');
      for (let start = 0; start < row.feature_count; start += RUN) delRun.run(lo + start);
      this.stmt('DELETE FROM observations WHERE id BETWEEN ? AND ?').run(lo, hi);
      this.stmt('DELETE FROM imagery_records WHERE id BETWEEN ? AND ?').run(lo, hi);
      this.stmt('DELETE FROM features WHERE id BETWEEN ? AND ?').run(lo, hi);
      this.stmt(`INSERT INTO queries_fts (queries_fts, rowid, query_text) VALUES ('delete', ?, ?)`).run(
        id,
        row.query_text,
      );
      const uploadIds = this.stmt('SELECT upload_id FROM query_uploads WHERE query_id = ?').pluck().all(id);
      this.stmt('DELETE FROM query_uploads WHERE query_id = ?').run(id);
      const orphan = this.stmt(
        'DELETE FROM uploads WHERE id = ? AND NOT EXISTS (SELECT 1 FROM query_uploads WHERE upload_id = ?)',
      );
      for (const u of uploadIds) orphan.run(u, u);
      this.stmt('UPDATE queries SET rerun_of = NULL WHERE rerun_of = ?').run(id);
      this.stmt('DELETE FROM queries WHERE id = ?').run(id);
      return true;
    })();
    if (deleted && !this.db.inTransaction) this.afterWrite();
    return deleted;
  }

  stats(): CacheStats {
    const kinds = this.stmt('SELECT kind, count(*) AS n FROM queries GROUP BY kind').all() as {
      kind: QueryKind;
      n: number;
    }[];
    const queries: Record<QueryKind, number> = { compute: 0, stream: 0, imagery: 0 };
    for (const k of kinds) queries[k.kind] = k.n;
    const agg = (table: string, col: string) =>
      this.stmt(`SELECT count(*) AS count, coalesce(sum(${col}), 0) AS bytes FROM ${table}`).get() as {
        count: number;
        bytes: number;
      };
    const size = (f: string) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    return {
      schemaVersion: this.db.pragma('user_version', { simple: true }) as number,
      queries,
      features: (this.stmt('SELECT count(*) FROM features').pluck().get() as number) ?? 0,
      uploads: agg('uploads', 'size'),
      media: agg('media', 'size'),
      dbBytes: size(this.file),
      walBytes: size(this.file + '-wal'),
    };
  }

  /** Merges the FTS segments, rebuilds the file without free pages and truncates the WAL. */
  vacuum(): { bytesBefore: number; bytesAfter: number } {
    const before = this.stats();
    this.db.exec(`INSERT INTO features_fts (features_fts) VALUES ('optimize');
      INSERT INTO queries_fts (queries_fts) VALUES ('optimize');`);
    this.db.exec('VACUUM');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    const after = this.stats();
    return { bytesBefore: before.dbBytes + before.walBytes, bytesAfter: after.dbBytes + after.walBytes };
  }

  // ---------------------------------------------------------------- media

  getMedia(url: string): MediaEntry | null {
    const r = this.stmt('SELECT url, content_type, bytes, fetched_at FROM media WHERE url = ?').get(url) as
      | { url: string; content_type: string; bytes: Buffer; fetched_at: number }
      | undefined;
    return r ? { url: r.url, contentType: r.content_type, bytes: r.bytes, fetchedAt: r.fetched_at } : null;
  }

  putMedia(url: string, contentType: string, bytes: Uint8Array, fetchedAt = Date.now()): void {
    this.stmt(
      `INSERT INTO media (url, content_type, size, bytes, fetched_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (url) DO UPDATE SET content_type = excluded.content_type, size = excluded.size,
         bytes = excluded.bytes, fetched_at = excluded.fetched_at`,
    ).run(url, contentType, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), fetchedAt);
    if (!this.db.inTransaction) this.afterWrite();
  }
}
