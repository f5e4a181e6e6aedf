import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';

const PREFIX = 'osm-scratch-';
/** `osm-scratch-<uuid>.sqlite`, the files beside it (`….sqlite.nodes`, `….sqlite.ways`) and a journal an older build left. */
const SCRATCH_NAME = /^(osm-scratch-[0-9a-f-]{36}\.sqlite)(?:\.[a-z]+|-journal)?$/;

/**
 * A throw-away SQLite file (and files beside it) for the spilled OSM nodes and way geometries of
 * one import, deleted when the import ends whatever happened. Its journal in memory and no
 * fsync: nothing in it outlives the import (journal_mode OFF is refused in better-sqlite3's
 * defensive mode, which left a journal file beside it). It is opened at once and keeps an exclusive lock until it closes:
 * the lock tells a live import's files from those a killed one left (reclaimScratchFiles), in
 * this process or any other on the same data folder (--workers N, two services), where a
 * process id could belong to someone else after a restart (a container's service is pid 1 each time).
 */
export function scratchDatabase(tempDir: string): { get: () => Database.Database; file: (name: string) => string; dispose: () => void } {
  mkdirSync(tempDir, { recursive: true });
  const file = join(tempDir, `${PREFIX}${randomUUID()}.sqlite`);
  let db: Database.Database | null = new Database(file);
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -16384');
  // Locks taken are never given back until close; BEGIN EXCLUSIVE takes the strongest.
  db.pragma('locking_mode = EXCLUSIVE');
  db.exec('BEGIN EXCLUSIVE; COMMIT');
  const others = new Set<string>();
  return {
    get() {
      if (!db) throw new Error('scratch database already disposed');
      return db;
    },
    /** A scratch file of its own beside the database, removed with it. */
    file(name: string) {
      const path = `${file}.${name}`;
      others.add(path);
      return path;
    },
    dispose() {
      db?.close();
      db = null;
      for (const path of others) rmSync(path, { force: true });
      // Last: while the database is there, its (released) lock is what marks the others as dead.
      rmSync(file, { force: true });
    },
  };
}

/**
 * Removes the scratch files of OSM imports that are no longer running (a killed process, a
 * power cut) from `tempDir`: those whose database no process holds locked, or whose database
 * is gone. Returns the bytes given back. Called when a service or `--layer` import starts.
 */
export function reclaimScratchFiles(tempDir: string): { files: number; bytes: number } {
  let names: string[];
  try {
    names = readdirSync(tempDir);
  } catch {
    return { files: 0, bytes: 0 };
  }
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const m = SCRATCH_NAME.exec(name);
    if (m) groups.set(m[1]!, [...(groups.get(m[1]!) ?? []), name]);
  }
  let files = 0;
  let bytes = 0;
  for (const [base, members] of groups) {
    if (members.includes(base) && isLocked(join(tempDir, base))) continue;
    // The database last, as an import's own clean-up does.
    for (const name of members.sort((a, b) => Number(a === base) - Number(b === base))) {
      const path = join(tempDir, name);
      try {
        const size = statSync(path).size;
        rmSync(path);
        files++;
        bytes += size;
      } catch {
        // Gone meanwhile, or held open where an open file cannot be removed: the next start sees it again.
      }
    }
  }
  return { files, bytes };
}

/** Whether a process (this one included) holds the scratch database locked: a live import. */
function isLocked(path: string): boolean {
  let probe: Database.Database | null = null;
  try {
    probe = new Database(path, { fileMustExist: true, timeout: 0 });
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (e) {
    // Busy: locked by its import. Anything else (not a database, gone): nothing live to keep.
    return (e as { code?: string }).code === 'SQLITE_BUSY';
  } finally {
    probe?.close();
  }
}
