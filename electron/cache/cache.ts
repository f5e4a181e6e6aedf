import { statSync } from 'node:fs';
import Database, { type Database as Db, type Statement } from 'better-sqlite3';
import type { ComputeResponse } from '../../shared/service/compute';
import type { ImageryResponse } from '../../shared/service/imagery';
import type { StreamResponse } from '../../shared/service/stream';
import type { CacheDb } from './db';
import { deleteQuery, stats, vacuum } from './maintenance';
import { getMedia, putMedia } from './media';
import { getTile, putTile, tileCount } from './tiles';
import { imageryNear, type CachedCapture } from './imagery-near';
import { migrate } from './migrations';
import { placeDiff, type PlaceDiff } from './place-diff';
import { dropQueued, enqueue, listQueue, queued, setQueued, type QueuedQuestion, type QueueStatus } from './queue';
import { list } from './history-filter';
import { features, get, rawResponse, searchFeatures, uploadsOf } from './search';
import type { BBox } from './spatial';
import { storeCompute, storeError, storeImagery, storeStream } from './store-response';
import { diff, thread } from './threads';
import { indexPendingWords } from './words';
import { footprint, importQuery, mediaUrlsOf, queryKeys, queryRows, type QueryRows } from './transfer';
import type {
  CacheStats,
  FeatureDiff,
  FeatureHit,
  ListFilter,
  MediaEntry,
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
export type { QueuedQuestion, QueueStatus } from './queue';
export type { Change, PlaceDiff, PlaceDiffRow } from './place-diff';
export type { CachedCapture } from './imagery-near';
export type { QueryRows } from './transfer';
export { queryKey } from './transfer';
export { ftsExpression } from './search';

/** Idle time after the last write before the WAL is checkpointed, and the size that forces one. */
const CHECKPOINT_IDLE_MS = 1000;
const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

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
  // What the job modules (store-response, search, threads, maintenance, media) work on.
  private readonly c: CacheDb;
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
    this.c = {
      db: this.db,
      file,
      stmt: (sql) => this.stmt(sql),
      afterWrite: () => this.afterWrite(),
    };
    // Words a crash left waiting are indexed now: the text indexes agree with their content.
    if (!opts.readonly) this.indexWords();
  }

  /**
   * Indexes the words of the entries stored since the last time (see words.ts); done by itself
   * when writes pause and before any word search. Returns how many entries it indexed.
   */
  indexWords(): number {
    if (!this.db.open || this.db.readonly) return 0;
    return indexPendingWords(this.c);
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
    this.checkpointTimer = setTimeout(() => {
      if (this.db.open && !this.db.inTransaction) this.indexWords();
      this.checkpoint();
    }, CHECKPOINT_IDLE_MS);
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
    if (this.db.open && !this.db.inTransaction) this.indexWords();
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

  // ---------------------------------------------------------------- storing a response (store-response.ts)

  storeCompute(meta: QueryMeta, body: ComputeResponse, raw: RawBody): number {
    return storeCompute(this.c, meta, body, raw);
  }

  storeStream(meta: QueryMeta, body: StreamResponse, raw: RawBody): number {
    return storeStream(this.c, meta, body, raw);
  }

  storeImagery(meta: QueryMeta, body: ImageryResponse, raw: RawBody): number {
    return storeImagery(this.c, meta, body, raw);
  }

  /** A request that produced no usable body (HTTP error, timeout, malformed JSON): kept for history. */
  storeError(kind: QueryKind, meta: QueryMeta, error: StoredError, raw: RawBody | null = null): number {
    return storeError(this.c, kind, meta, error, raw);
  }

  /** Runs `fn` in one transaction (bulk loads: many responses, one commit). */
  bulk<T>(fn: () => T): T {
    // The words of every response of the load indexed in the same transaction, as one batch.
    const out = this.db.transaction(() => {
      const value = fn();
      indexPendingWords(this.c);
      return value;
    })();
    this.afterWrite();
    return out;
  }

  // ---------------------------------------------------------------- search (search.ts)

  get(id: number): QueryRecord | null {
    return get(this.c, id);
  }

  /** The response body's bytes exactly as received (evidence bundles); null when none was kept. */
  rawResponse(id: number): Buffer | null {
    return rawResponse(this.c, id);
  }

  /** The upload bytes kept with a query (for re-sending on rerun). */
  uploadsOf(queryId: number): UploadInput[] {
    return uploadsOf(this.c, queryId);
  }

  list(filter: ListFilter = {}): { items: QuerySummary[]; hasMore: boolean } {
    if (filter.text) this.indexWords();
    return list(this.c, filter);
  }

  /** Features of one query in response order. */
  features(queryId: number): FeatureHit[] {
    return features(this.c, queryId);
  }

  /** Features across all cached queries matching words and/or lying in a box. */
  searchFeatures(opts: { text?: string; bbox?: BBox; limit?: number }): FeatureHit[] {
    if (opts.text) this.indexWords();
    return searchFeatures(this.c, opts);
  }

  // ---------------------------------------------------------------- threads and diffs (threads.ts)

  /**
   * The continuation tree around a query: up the search_id links to the root, then every query
   * that continued any node, breadth first. Parents are found by remote id.
   */
  thread(id: number): ThreadNode[] {
    return thread(this.c, id);
  }

  /**
   * Ids of saved searches on a service that cached queries still name: each one's own (remote
   * id) and the one it continued (search_id). Opened packs are in the cache as queries, so theirs
   * are among them; a service keeps these when it deletes old results.
   */
  serviceSearchIds(): string[] {
    return this.c
      .stmt(`SELECT remote_id FROM queries WHERE remote_id IS NOT NULL UNION SELECT search_id FROM queries WHERE search_id IS NOT NULL`)
      .pluck()
      .all() as string[];
  }

  /** Added, removed and changed items between two cached responses, matched by item id. */
  diff(oldId: number, newId: number): FeatureDiff {
    return diff(this.c, oldId, newId);
  }

  /** Added, removed, moved (beyond toleranceMetres) and changed items, with a feature per row. */
  placeDiff(oldId: number, newId: number, toleranceMetres: number): PlaceDiff {
    return placeDiff(this.c, oldId, newId, toleranceMetres);
  }

  /** Cached imagery records positioned in a box, one per record id. */
  imageryNear(box: BBox): CachedCapture[] {
    return imageryNear(this.c, box);
  }

  // ---------------------------------------------------------------- maintenance (maintenance.ts)

  delete(id: number): boolean {
    return deleteQuery(this.c, id);
  }

  stats(): CacheStats {
    return stats(this.c);
  }

  /** Merges the FTS segments, rebuilds the file without free pages and truncates the WAL. */
  vacuum(): { bytesBefore: number; bytesAfter: number } {
    return vacuum(this.c);
  }

  // ---------------------------------------------------------------- question queue (queue.ts)

  enqueue(q: { profileId: string; request: Record<string, unknown>; attachments: unknown[]; now: number }): QueuedQuestion {
    return enqueue(this.c, q);
  }

  queued(id: number): QueuedQuestion | null {
    return queued(this.c, id);
  }

  listQueue(): QueuedQuestion[] {
    return listQueue(this.c);
  }

  setQueued(
    id: number,
    patch: { status: QueueStatus; now: number; request?: Record<string, unknown>; queryId?: number | null; error?: QueuedQuestion['error'] },
  ): void {
    setQueued(this.c, id, patch);
  }

  dropQueued(id: number): boolean {
    return dropQueued(this.c, id);
  }

  // ---------------------------------------------------------------- carrying queries (transfer.ts)

  /** Stable key -> local id of every cached query (see queryKey). */
  queryKeys(): Map<string, number> {
    return queryKeys(this.c);
  }

  /** Every row of one query with no local ids in it, to be carried to another cache. */
  queryRows(id: number): QueryRows | null {
    return queryRows(this.c, id);
  }

  /** Stores carried rows (one query already here by key keeps its id); `keys` learns the new id. */
  importQuery(rows: QueryRows, keys: Map<string, number>): { id: number; added: boolean } {
    const out = importQuery(this.c, rows, keys);
    if (!this.db.inTransaction) this.afterWrite();
    return out;
  }

  /** What carrying these queries takes: items, response bytes and distinct uploads. */
  footprint(ids: readonly number[]): { features: number; rawBytes: number; uploads: { count: number; bytes: number } } {
    return footprint(this.c, ids);
  }

  /** Media shown by the items of these queries, with the cached size (null: not cached). */
  mediaUrlsOf(ids: readonly number[]): { url: string; size: number | null }[] {
    return mediaUrlsOf(this.c, ids);
  }

  // ---------------------------------------------------------------- media (media.ts)

  getMedia(url: string): MediaEntry | null {
    return getMedia(this.c, url);
  }

  putMedia(url: string, contentType: string, bytes: Uint8Array, fetchedAt = Date.now()): void {
    putMedia(this.c, url, contentType, bytes, fetchedAt);
  }

  // ---------------------------------------------------------------- basemap tiles (tiles.ts)

  getTile(z: number, x: number, y: number): Buffer | null {
    return getTile(this.c, z, x, y);
  }

  /** True when the tile was not in the cache before. */
  putTile(z: number, x: number, y: number, data: Uint8Array): boolean {
    return putTile(this.c, z, x, y, data);
  }

  tileCount(): { count: number; maxZoom: number | null } {
    return tileCount(this.c);
  }
}
