import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';

/**
 * A throw-away SQLite file (and files beside it) for the spilled OSM nodes and way geometries of one import. Opened on
 * first use, deleted when the import ends whatever happened. No journal and no fsync: nothing
 * in it outlives the import.
 */
export function scratchDatabase(tempDir: string): { get: () => Database.Database; file: (name: string) => string; dispose: () => void } {
  let db: Database.Database | null = null;
  const file = join(tempDir, `osm-scratch-${randomUUID()}.sqlite`);
  const others = new Set<string>();
  return {
    get() {
      if (!db) {
        mkdirSync(tempDir, { recursive: true });
        db = new Database(file);
        db.pragma('journal_mode = OFF');
        db.pragma('synchronous = OFF');
        db.pragma('cache_size = -16384');
      }
      return db;
    },
    /** A scratch file of its own beside the database, removed with it. */
    file(name: string) {
      mkdirSync(tempDir, { recursive: true });
      const path = `${file}.${name}`;
      others.add(path);
      return path;
    },
    dispose() {
      db?.close();
      db = null;
      rmSync(file, { force: true });
      for (const path of others) rmSync(path, { force: true });
    },
  };
}
