import { mkdirSync } from 'node:fs';
import { UploadSet, type UploadFeature } from './uploads';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { gunzip, gzip } from 'node:zlib';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { applyMigrations, type MigrationStep } from '../ground/migrations';
import { BUILTIN_CODES, type KindCodes } from './catalog/kinds/registry';
import type { Item, SavedSet } from './query/item';
import { CompactItems, type ItemList } from './query/item-list';

/** Numbered migrations of the compute routes, applied in order inside one transaction at open. */
const MIGRATIONS: MigrationStep[] = [
  `CREATE TABLE searches (
     id TEXT PRIMARY KEY,
     created_at TEXT NOT NULL,
     user_id TEXT,
     query TEXT NOT NULL,
     parent_id TEXT,
     catalog_version TEXT NOT NULL,
     subject TEXT NOT NULL,
     items TEXT NOT NULL,
     uploads TEXT NOT NULL
   );
   CREATE INDEX searches_user ON searches(user_id, created_at);`,
  // Result sets as packed arrays (see packItems); `items` then holds only per-item figures.
  `ALTER TABLE searches ADD COLUMN items_bin BLOB;`,
  // Uploaded files once per content hash, gzipped, in chunks (each written in its own short
  // transaction, so a 10 MB file never holds the request thread), linked to the saved results
  // that use them. The `uploads` row is written after its chunks: it marks the file complete.
  // A file no saved result refers to any more is deleted with its last link. Saved results with
  // links keep '[]' in `uploads` and read the files again on continuation.
  `CREATE TABLE uploads (
     hash TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     chunks INTEGER NOT NULL
   );
   CREATE TABLE upload_chunks (
     hash TEXT NOT NULL,
     seq INTEGER NOT NULL,
     data BLOB NOT NULL,
     PRIMARY KEY (hash, seq)
   );
   CREATE TABLE search_uploads (
     search_id TEXT NOT NULL,
     position INTEGER NOT NULL,
     hash TEXT NOT NULL,
     name TEXT NOT NULL,
     PRIMARY KEY (search_id, position)
   );
   CREATE INDEX search_uploads_hash ON search_uploads(hash);
   CREATE TRIGGER searches_gone AFTER DELETE ON searches
   BEGIN DELETE FROM search_uploads WHERE search_id = old.id; END;
   CREATE TRIGGER search_uploads_gone AFTER DELETE ON search_uploads
   WHEN NOT EXISTS (SELECT 1 FROM search_uploads WHERE hash = old.hash)
   BEGIN DELETE FROM uploads WHERE hash = old.hash; END;
   CREATE TRIGGER uploads_gone AFTER DELETE ON uploads
   BEGIN DELETE FROM upload_chunks WHERE hash = old.hash; END;`,
  // Pages freed by retention go back to the file system (`PRAGMA incremental_vacuum` after each
  // prune), so --retention-mb bounds the file. A file made before this takes one VACUUM to switch,
  // run by the first prune (sqliteResultStore's reclaim); a new file is made so (openDatabase).
  (db) => void db.pragma('auto_vacuum = INCREMENTAL'),
];

/** A result set packed for the `searches` row (see packItems). */
export interface PackedItems {
  bin: Buffer;
  figures: string;
}

/** Items packed between two looks at the clock by packItemsSliced. */
const PACK_STEP = 16_384;

/** Flags of a packed set (its second u32; 0 in sets packed before they existed). */
const NO_DISTANCES = 1;
const ONE_KIND = 2;
/** Item numbers are 0, 1, … n-1 in order (every uploaded row, in file order): none are stored. */
const EVERY_ROW = 4;

/** Whether the numbers are 0, 1, … in order. */
function everyRow(idx: Int32Array): boolean {
  for (let j = 0; j < idx.length; j++) if (idx[j] !== j) return false;
  return true;
}

/** Packs `items` in blocks of PACK_STEP, yielding after each; returns the packed set. */
function* packSteps(items: ItemList, codes: KindCodes): Generator<void, PackedItems> {
  const n = items.length;
  const compact = items instanceof CompactItems ? items : null;
  const list = compact ? null : (items as Item[]);
  // Distances and a kind per item only where they say something: uploaded rows often have neither.
  const hasD = compact ? compact.hasDistances : list!.some((x) => x.d !== undefined);
  const kind0 = compact ? compact.k : list![0]?.k;
  const oneKind = n > 0 && (compact !== null || list!.every((x) => x.k === kind0));
  const all = compact !== null && !hasD && everyRow(compact.indices());
  const flags = (hasD ? 0 : NO_DISTANCES) | (oneKind ? ONE_KIND : 0) | (all ? EVERY_ROW : 0);
  const dBytes = hasD ? n * 8 : 0;
  const iBytes = all ? 0 : n * 4;
  const buf = new ArrayBuffer(8 + dBytes + iBytes + (oneKind ? 1 : n));
  const head = new Uint32Array(buf, 0, 2);
  head[0] = n;
  head[1] = flags;
  const d = hasD ? new Float64Array(buf, 8, n) : null;
  const idx = new Uint32Array(buf, 8 + dBytes, iBytes / 4);
  const kind = new Uint8Array(buf, 8 + dBytes + iBytes, oneKind ? 1 : n);
  if (oneKind) kind[0] = codes.codeOf(kind0!);
  if (compact) {
    // Typed arrays copied as they are, the only copy made.
    const ci = compact.indices();
    if (!all) idx.set(new Uint32Array(ci.buffer, ci.byteOffset, ci.length));
    if (d) d.set(compact.distances()!);
    return { bin: Buffer.from(buf), figures: '{}' };
  }
  const figures: Record<number, Item['a']> = {};
  let hasFigures = false;
  for (let j = 0; j < n; j++) {
    const x = list![j]!;
    if (d) d[j] = x.d ?? NaN;
    idx[j] = x.i;
    if (!oneKind) kind[j] = codes.codeOf(x.k);
    if (x.a) {
      figures[j] = x.a;
      hasFigures = true;
    }
    if (j % PACK_STEP === PACK_STEP - 1) yield;
  }
  return { bin: Buffer.from(buf), figures: hasFigures ? JSON.stringify(figures) : '{}' };
}

/**
 * A result set as packed arrays: item count and flags, distances (f64, NaN for none; left out
 * when no item has one), item numbers (u32; left out when they are every row in order) and kind
 * bytes (one when all are of one kind), plus
 * a JSON map of the few items that carry figures. 135,000 items pack into
 * 1.8 MB in a few milliseconds, where JSON text took 3-6 MB and 20-100 ms on the request thread.
 * Kind bytes are the storage codes of the kinds' vocabulary entries.
 */
export function packItems(items: ItemList, codes: KindCodes = BUILTIN_CODES): PackedItems {
  const steps = packSteps(items, codes);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** packItems for large sets on the request thread: 300,000 items take 30-80 ms, cut into slices. */
export async function packItemsSliced(
  items: ItemList,
  slice: { due(): boolean; pause(): Promise<void> },
  codes: KindCodes = BUILTIN_CODES,
): Promise<PackedItems> {
  const steps = packSteps(items, codes);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (slice.due()) await slice.pause();
  }
}

export function unpackItems(bin: Buffer, figuresJson: string, codes: KindCodes = BUILTIN_CODES): Item[] {
  // Copied into a fresh buffer: typed views need aligned offsets, a driver Buffer may not be.
  const buf = new Uint8Array(bin).buffer;
  const [n, flags] = new Uint32Array(buf, 0, 2) as unknown as [number, number];
  const dBytes = flags & NO_DISTANCES ? 0 : n * 8;
  const d = dBytes ? new Float64Array(buf, 8, n) : null;
  const all = (flags & EVERY_ROW) !== 0;
  const iBytes = all ? 0 : n * 4;
  const idx = new Uint32Array(buf, 8 + dBytes, iBytes / 4);
  const oneKind = (flags & ONE_KIND) !== 0;
  const kind = new Uint8Array(buf, 8 + dBytes + iBytes, oneKind ? Math.min(n, 1) : n);
  const figures = JSON.parse(figuresJson) as Record<string, Item['a']>;
  const items: Item[] = new Array(n);
  const k0 = oneKind && n ? codes.kindOf(kind[0]!) : '';
  for (let j = 0; j < n; j++) {
    const x: Item = { k: oneKind ? k0 : codes.kindOf(kind[j]!), i: all ? j : idx[j]! };
    if (d && !Number.isNaN(d[j]!)) x.d = d[j]!;
    const a = figures[j];
    if (a) x.a = a;
    items[j] = x;
  }
  return items;
}

// One migration runner for both SQLite databases (this one and the app's query cache).
export { applyMigrations };

/** An uploaded file a saved result was computed from: its content hash and the name it was sent as. */
export interface StoredFile {
  hash: string;
  name: string;
}

export interface SavedSearch {
  id: string;
  createdAt: string;
  userId: string | null;
  query: string;
  catalogVersion: string;
  set: SavedSet;
  /**
   * Files whose features `set.uploads` holds. A set read back from the database has them and an
   * empty `set.uploads`: the caller reads the files again (readUpload) to rebuild it.
   */
  files?: StoredFile[];
}

/** The columns both result stores keep a saved set under, named as in their `searches` tables. */
export interface SearchRowHead {
  id: string;
  created_at: string;
  user_id: string | null;
  query: string;
  catalog_version: string;
  subject: string;
  uploads: string;
}

export function savedSearchFromRow(row: SearchRowHead, files: StoredFile[], items: Item[]): SavedSearch {
  return {
    files,
    id: row.id,
    createdAt: row.created_at,
    userId: row.user_id,
    query: row.query,
    catalogVersion: row.catalog_version,
    set: { subject: row.subject as SavedSet['subject'], items, uploads: UploadSet.of(JSON.parse(row.uploads) as UploadFeature[]) },
  };
}

export interface SearchStore {
  db: Database.Database;
  /** `packed`: the items already packed (packItemsSliced), else they are packed here at once. */
  save(s: SavedSearch & { parentId?: string | null }, packed?: PackedItems): void;
  get(id: string): SavedSearch | null;
  /** Keeps an uploaded file (once per content hash) until the saved results using it are gone. */
  keepUpload(hash: string, bytes: Buffer): Promise<void>;
  /** The bytes of a kept upload, or null when none is stored under that hash. */
  readUpload(hash: string): Promise<Buffer | null>;
  /** Deletes uploads no saved result refers to; returns how many. */
  sweepUploads(): number;
  close(): void;
}

export const DATABASE_FILE = 'local-service.sqlite';

export function openDatabase(dataDir: string): Database.Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DATABASE_FILE));
  // Before the first page is written the mode is set with no VACUUM (migration 4 says why).
  if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 2000');
  applyMigrations(db, 'compute', MIGRATIONS);
  return db;
}

type Row = [string, string, string | null, string, string | null, string, string, string, Buffer, string];
/** Bytes of gzipped upload per row (and per write): about 10 ms of SQLite work each. */
const UPLOAD_CHUNK = 512 * 1024;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * Saves are written behind: a request's result set is kept in memory and written with the
 * others of the same moment in one transaction on the next turn of the event loop (one WAL
 * commit instead of one per request). Reads see pending rows, and close() writes them all.
 */
// Checkpoints copy the WAL into the database file and fsync it: 10-30 ms on this class of disk.
// Run on the request thread they stall every request in flight, so a worker thread with its own
// connection does them (plain CommonJS, so it needs no build step; the driver path is passed in).
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const step = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { parentPort.postMessage({ error: String(e) }); }
};
const timer = setInterval(step, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  step();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  close(): Promise<void>;
}

/**
 * Takes checkpoints of the service database off the request thread. The request thread's
 * connection stops checkpointing on its own only once the worker runs; if the worker cannot
 * start, SQLite's automatic checkpoints stay on.
 */
export function startCheckpointer(db: Database.Database, onError: (e: unknown) => void, intervalMs = 1000): Checkpointer {
  let worker: Worker;
  try {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(CHECKPOINTER, { eval: true, workerData: { driver, file: db.name, intervalMs } });
  } catch (e) {
    onError(e);
    return { close: async () => {} };
  }
  worker.on('message', (m: { error?: string }) => m?.error && onError(new Error(m.error)));
  worker.on('error', (e) => {
    onError(e);
    db.pragma('wal_autocheckpoint = 1000');
  });
  worker.unref();
  db.pragma('wal_autocheckpoint = 0');
  return {
    async close() {
      const done = new Promise((ok) => worker.once('exit', ok));
      worker.postMessage('close');
      await Promise.race([done, new Promise((ok) => setTimeout(ok, 2000))]);
      await worker.terminate();
    },
  };
}

/** `codes`: the storage codes of the catalog's kinds (the built-in ones by default). */
export function createSearchStore(
  db: Database.Database,
  onError: (e: unknown) => void = () => {},
  codes: KindCodes = BUILTIN_CODES,
): SearchStore {
  const insert = db.prepare(
    `INSERT INTO searches (id, created_at, user_id, query, parent_id, catalog_version, subject, items, items_bin, uploads)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const select = db.prepare(`SELECT * FROM searches WHERE id = ?`);
  const insertLink = db.prepare(`INSERT INTO search_uploads (search_id, position, hash, name) VALUES (?, ?, ?, ?)`);
  const selectLinks = db.prepare(`SELECT hash, name FROM search_uploads WHERE search_id = ? ORDER BY position`);
  const insertUpload = db.prepare(`INSERT OR IGNORE INTO uploads (hash, size, created_at, chunks) VALUES (?, ?, ?, ?)`);
  const insertChunk = db.prepare(`INSERT OR IGNORE INTO upload_chunks (hash, seq, data) VALUES (?, ?, ?)`);
  const hasUpload = db.prepare(`SELECT 1 FROM uploads WHERE hash = ?`).pluck();
  const selectChunks = db.prepare(`SELECT data FROM upload_chunks WHERE hash = ? ORDER BY seq`).pluck();
  const sweepUploads = db.prepare(`DELETE FROM uploads WHERE hash NOT IN (SELECT hash FROM search_uploads)`);
  const sweepChunks = db.prepare(`DELETE FROM upload_chunks WHERE hash NOT IN (SELECT hash FROM uploads)`);
  const sweep = () => sweepUploads.run().changes + sweepChunks.run().changes;
  const pending = new Map<string, SavedSearch>();
  let rows: Row[] = [];
  let links: [string, number, string, string][] = [];
  let scheduled: NodeJS.Immediate | null = null;
  const writeAll = db.transaction((batch: Row[], batchLinks: typeof links) => {
    for (const r of batch) insert.run(...r);
    for (const l of batchLinks) insertLink.run(...l);
  });
  const flush = () => {
    scheduled = null;
    const batch = rows;
    const batchLinks = links;
    rows = [];
    links = [];
    try {
      if (batch.length) writeAll(batch, batchLinks);
      for (const r of batch) pending.delete(r[0]);
    } catch (e) {
      // A failed write (disk full, locked file) must not take the server down: the sets stay
      // readable from memory for this run, and the failure is logged.
      onError(e);
    }
  };
  // Files of a run that stopped before linking them.
  sweep();
  return {
    db,
    save(s, packed = packItems(s.set.items, codes)) {
      pending.set(s.id, s);
      const files = s.files ?? [];
      files.forEach((f, i) => links.push([s.id, i, f.hash, f.name]));
      rows.push([
        s.id,
        s.createdAt,
        s.userId,
        s.query,
        s.parentId ?? null,
        s.catalogVersion,
        s.set.subject,
        packed.figures,
        packed.bin,
        files.length ? '[]' : JSON.stringify(s.set.uploads),
      ]);
      scheduled ??= setImmediate(flush);
    },
    get(id) {
      const key = id.toLowerCase();
      const p = pending.get(key);
      if (p) return p;
      const row = select.get(key) as (SearchRowHead & { items: string; items_bin: Buffer | null }) | undefined;
      if (!row) return null;
      const items = row.items_bin ? unpackItems(row.items_bin, row.items, codes) : (JSON.parse(row.items) as Item[]);
      return savedSearchFromRow(row, selectLinks.all(key) as StoredFile[], items);
    },
    async keepUpload(hash, bytes) {
      if (hasUpload.get(hash)) return;
      // Compressed on the thread pool: a 10 MB CSV takes about half a second at level 1.
      const data = await gzipAsync(bytes, { level: 1 });
      let seq = 0;
      for (let at = 0; at < data.length; at += UPLOAD_CHUNK) {
        insertChunk.run(hash, seq++, data.subarray(at, at + UPLOAD_CHUNK));
        await nextTurn();
      }
      insertUpload.run(hash, bytes.length, new Date().toISOString(), seq);
    },
    async readUpload(hash) {
      if (!hasUpload.get(hash)) return null;
      return gunzipAsync(Buffer.concat(selectChunks.all(hash) as Buffer[]));
    },
    sweepUploads() {
      return sweep();
    },
    close() {
      if (scheduled) clearImmediate(scheduled);
      flush();
      db.close();
    },
  };
}
