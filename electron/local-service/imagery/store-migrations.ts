import { runMigrations, type MigrationStep, type VersionStore } from '../../ground/migrations';
import type { Database } from './plugin-types';

/**
 * The imagery catalog's tables in the service's SQLite; step i is version i + 1, tracked in their
 * own table (imagery_migrations) so they never collide with the rest of the service.
 */
const MIGRATIONS: MigrationStep[] = [
  `
      CREATE TABLE imagery_photo (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL UNIQUE,
        root TEXT NOT NULL,
        mtime_ms REAL NOT NULL,
        size INTEGER NOT NULL,
        mime TEXT NOT NULL,
        lon REAL NOT NULL,
        lat REAL NOT NULL,
        direction REAL,
        taken_at TEXT,
        year INTEGER,
        month INTEGER,
        description TEXT,
        keywords TEXT NOT NULL DEFAULT '[]',
        make TEXT,
        artist TEXT,
        width INTEGER,
        height INTEGER,
        interactive INTEGER NOT NULL DEFAULT 0,
        city TEXT,
        country TEXT,
        country_code TEXT,
        region_id TEXT,
        address TEXT NOT NULL
      );
      CREATE INDEX imagery_photo_year ON imagery_photo(year);
      CREATE INDEX imagery_photo_region ON imagery_photo(region_id);
      CREATE VIRTUAL TABLE imagery_fts USING fts5(
        text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
      );
      CREATE TABLE imagery_skipped (
        path TEXT PRIMARY KEY,
        root TEXT NOT NULL,
        mtime_ms REAL NOT NULL,
        size INTEGER NOT NULL,
        reason TEXT NOT NULL
      );
      CREATE TABLE imagery_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  // Videos with a sidecar position.
  `
      ALTER TABLE imagery_photo ADD COLUMN is_video INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE imagery_photo ADD COLUMN duration REAL;
    `,
  // What the detectors saw in each photo (box in the photo's pixels), and which run looked at it.
  `
      CREATE TABLE imagery_detection (
        photo_rowid INTEGER NOT NULL,
        model TEXT NOT NULL,
        label TEXT NOT NULL,
        score REAL NOT NULL,
        x REAL NOT NULL,
        y REAL NOT NULL,
        w REAL NOT NULL,
        h REAL NOT NULL
      );
      CREATE INDEX imagery_detection_photo ON imagery_detection(photo_rowid);
      CREATE INDEX imagery_detection_label ON imagery_detection(label, score);
      CREATE TABLE imagery_seen (photo_rowid INTEGER NOT NULL, run TEXT NOT NULL, PRIMARY KEY (photo_rowid, run));
      CREATE TABLE imagery_text (photo_rowid INTEGER PRIMARY KEY, lines TEXT NOT NULL);
      CREATE VIRTUAL TABLE imagery_text_fts USING fts5(
        text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
      );
    `,
  // The device and inode a photo was indexed from: its bytes are served only from that same file.
  `
      ALTER TABLE imagery_photo ADD COLUMN dev INTEGER;
      ALTER TABLE imagery_photo ADD COLUMN ino INTEGER;
    `,
];

/**
 * The imagery catalog keeps its version as a row per applied step in imagery_migrations (with
 * the time it ran), as catalogs made by earlier builds already do; the one runner of the ground
 * floor applies the steps.
 */
function imageryVersion(now: () => Date): VersionStore {
  const ensure = (db: Database) =>
    db.exec('CREATE TABLE IF NOT EXISTS imagery_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  return {
    read(db) {
      ensure(db);
      return (db.prepare('SELECT MAX(version) FROM imagery_migrations').pluck().get() as number | null) ?? 0;
    },
    write(db, version) {
      const add = db.prepare('INSERT OR IGNORE INTO imagery_migrations (version, applied_at) VALUES (?, ?)');
      const at = now().toISOString();
      for (let v = 1; v <= version; v++) add.run(v, at);
    },
  };
}

export function migrateImagery(db: Database, now: () => Date = () => new Date()): void {
  runMigrations(db, MIGRATIONS, imageryVersion(now), { label: 'the imagery catalog', onNewer: 'throw' });
}
