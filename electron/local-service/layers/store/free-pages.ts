import type Database from 'better-sqlite3';

/** auto_vacuum values as `PRAGMA auto_vacuum` reads them. */
const INCREMENTAL = 2;
/**
 * Free pages worth a one-time VACUUM of a file made before incremental vacuum was on: 64 MiB,
 * or a quarter of the file. A VACUUM rewrites the whole file (minutes for gigabytes), so a
 * few free pages in a large file wait until they add up.
 */
const VACUUM_BYTES = 64 * 1024 * 1024;

/**
 * Gives the free pages of the layers file back to the file system (those a removed layer or an
 * import cut short by a crash left: hundreds of MB after a large one). A new file is made with
 * auto_vacuum = INCREMENTAL (set before its first table, at open), so
 * `PRAGMA incremental_vacuum` moves the last pages into the free ones and truncates the file, in
 * time proportional to the pages freed. An older file can only switch through a VACUUM, done once
 * when enough is free. Another process using the file (busy) leaves it to the next start.
 * Returns the pages given back.
 */
export function reclaimFreePages(db: Database.Database): number {
  const free = db.pragma('freelist_count', { simple: true }) as number;
  if (!free) return 0;
  try {
    if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) db.pragma('incremental_vacuum');
    else {
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      const pages = db.pragma('page_count', { simple: true }) as number;
      if (free * pageSize < Math.min(VACUUM_BYTES, (pages * pageSize) / 4)) return 0;
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
    }
    // In WAL mode the file shrinks only once the moved pages are checkpointed.
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (e) {
    if (/^SQLITE_(BUSY|LOCKED)/.test((e as { code?: string }).code ?? '')) return 0;
    throw e;
  }
  return free - (db.pragma('freelist_count', { simple: true }) as number);
}
