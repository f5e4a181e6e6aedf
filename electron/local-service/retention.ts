import type { Logger } from '../ground/logger';

/**
 * How long saved searches are kept. A saved search goes when it is older than `maxAgeDays`, or
 * when the saved searches newer than it (with their stored files) already fill `maxBytes`;
 * never one that `pinned` names or that is the earlier step of a thread a kept search continues
 * (its `search_id` chain). 0 turns a bound off.
 */
export interface RetentionOptions {
  maxAgeDays: number;
  maxBytes: number;
  /** Ids of saved searches something outside the service still names (the app's query cache). */
  pinned?: () => Iterable<string> | Promise<Iterable<string>>;
  /** How often retention runs after the first run at start. */
  everyMs?: number;
}

export const DEFAULT_RETENTION = { maxAgeDays: 30, maxBytes: 512 * 1024 * 1024, everyMs: 10 * 60_000 } as const;

/** What retention weighs of one saved search: its thread link, age and bytes (its row and its share of the files it links). */
export interface RetentionRow {
  id: string;
  parentId: string | null;
  createdAt: string;
  bytes: number;
}

/** The side of a result store retention needs (both backends implement it). */
export interface RetentionStore {
  retentionRows(): Promise<RetentionRow[]>;
  /** Deletes saved searches, their links, and files no saved search links any more; returns how many searches went. */
  deleteSearches(ids: string[]): Promise<number>;
  /**
   * Gives the space deleted searches held back to the file system and returns the bytes the
   * database takes on disk now (its file and WAL). Absent where the store cannot (PostgreSQL's
   * VACUUM keeps the space for reuse; see the service README, "Retention").
   */
  reclaim?(): Promise<number>;
}

/** Rounds of deleting by the size on disk after the first (each one measured, see applyRetention). */
const DISK_ROUNDS = 6;

const DAY_MS = 86_400_000;

/** The saved searches to delete, newest kept first within the bounds. */
export function expiredSearches(
  rows: RetentionRow[],
  opts: { now: Date; maxAgeDays: number; maxBytes: number; pinned: ReadonlySet<string> },
): string[] {
  const oldest = opts.maxAgeDays > 0 ? opts.now.getTime() - opts.maxAgeDays * DAY_MS : -Infinity;
  const sorted = [...rows].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  const kept = new Set<string>();
  let used = 0;
  for (const r of sorted) {
    const fits = opts.maxBytes <= 0 || used + r.bytes <= opts.maxBytes;
    if (opts.pinned.has(r.id) || (Date.parse(r.createdAt) >= oldest && fits)) {
      kept.add(r.id);
      used += r.bytes;
    }
  }
  // A kept search keeps the thread it continues, whatever its age or size.
  const parentOf = new Map(rows.map((r) => [r.id, r.parentId]));
  for (const id of [...kept]) {
    let p = parentOf.get(id);
    while (p && !kept.has(p) && parentOf.has(p)) {
      kept.add(p);
      p = parentOf.get(p);
    }
  }
  return rows.filter((r) => !kept.has(r.id)).map((r) => r.id);
}

/**
 * One retention run over a store; returns how many saved searches went, how many stay and, where
 * the store can tell, the database's bytes on disk after it.
 */
export async function applyRetention(
  store: RetentionStore,
  opts: RetentionOptions,
  now: Date,
): Promise<{ deleted: number; kept: number; diskBytes?: number }> {
  if (opts.maxAgeDays <= 0 && opts.maxBytes <= 0) return { deleted: 0, kept: -1 };
  const pinned = new Set([...((await opts.pinned?.()) ?? [])].map((id) => id.toLowerCase()));
  const bounds = { now, maxAgeDays: opts.maxAgeDays, pinned };
  let rows = await store.retentionRows();
  const total = rows.length;
  const drop = async (ids: string[]) => (ids.length ? store.deleteSearches(ids) : 0);
  let deleted = await drop(expiredSearches(rows, { ...bounds, maxBytes: opts.maxBytes }));
  if (!store.reclaim) return { deleted, kept: total - deleted };
  let disk = await store.reclaim();
  // Row bytes leave out what pages, indexes and the rest of the file add: the size on disk
  // decides. Each round deletes the row bytes that should free the excess, at the disk bytes per
  // row byte the last round freed (at first, the file's bytes per row byte).
  let last: { disk: number; rowBytes: number } | null = null;
  for (let round = 0; opts.maxBytes > 0 && disk > opts.maxBytes && round < DISK_ROUNDS; round++) {
    rows = await store.retentionRows();
    const rowBytes = rows.reduce((n, r) => n + r.bytes, 0);
    const perByte = last && last.rowBytes > rowBytes && last.disk > disk ? (last.disk - disk) / (last.rowBytes - rowBytes) : disk / Math.max(1, rowBytes);
    last = { disk, rowBytes };
    // 1, not 0: a bound of 0 would mean none.
    const budget = Math.max(1, rowBytes - (disk - opts.maxBytes) / perByte);
    const gone = expiredSearches(rows, { ...bounds, maxBytes: budget });
    if (!gone.length) break;
    deleted += await drop(gone);
    disk = await store.reclaim();
  }
  return { deleted, kept: total - deleted, diskBytes: disk };
}

/** Runs retention at once and then every `everyMs`; stop() ends it (waiting for a run under way). */
export function scheduleRetention(store: RetentionStore, opts: RetentionOptions, clock: () => Date, logger: Logger) {
  let running: Promise<void> = Promise.resolve();
  const run = () =>
    (running = running.then(async () => {
      try {
        const r = await applyRetention(store, opts, clock());
        if (r.deleted) logger.info('local service: retention deleted saved searches', r);
        // Pinned searches, their threads, or other data in the file (the photo catalog) can hold it over.
        if (opts.maxBytes > 0 && r.diskBytes !== undefined && r.diskBytes > opts.maxBytes)
          logger.warn('local service: the results database is still over --retention-mb after retention', r);
      } catch (e) {
        logger.error('local service: retention failed', e);
      }
    }));
  const first = run();
  const timer = setInterval(run, opts.everyMs ?? DEFAULT_RETENTION.everyMs);
  timer.unref();
  return {
    first,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
