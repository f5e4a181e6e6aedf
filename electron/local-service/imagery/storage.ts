import type { Database } from './plugin-types';
import { migrateImagery } from './store-migrations';
import {
  ImageryStore,
  type FileIdentity,
  type KnownFile,
  type NewPhoto,
  type PhotoRow,
  type SeenPhotoRow,
  type Sighting,
  type SkippedRow,
  type Summary,
  type UnseenPhoto,
} from './store';

export type { KnownFile };

/** What one scan changes, written at once: all of it or nothing. */
export interface ScanChanges {
  /** Paths gone from disk or from the catalog's folders. */
  removed: string[];
  skipped: SkippedRow[];
  /** New or changed photos with their search text (catalog.ts searchText). */
  photos: { row: Omit<NewPhoto, 'id'>; text: string }[];
  /** Unchanged photos indexed before device and inode were kept: their identity as found now. */
  identified?: FileIdentity[];
}

/**
 * Where the imagery catalog is kept: the data folder's SQLite (embedded, the default) or
 * PostgreSQL (a team service; pg-store.ts). Both give the same answers; rowids are the keys the
 * catalog's in-memory snapshot refers to rows by.
 */
export interface ImageryStorage {
  /** Path -> mtime/size (device/inode of photos) of everything already looked at (indexed or skipped). */
  knownFiles(): Promise<Map<string, KnownFile>>;
  /**
   * Writes one scan's changes in one transaction. A photo keeps its id (and rowid) while its
   * path stays; new ones get `newId()`. The generation moves when anything changed.
   */
  apply(changes: ScanChanges, newId: () => string): Promise<void>;
  /**
   * Rowids whose search text, or (unless `read` is false) text read in the photo, holds the word as
   * one FTS5 phrase (tokens folded and in a row).
   */
  match(word: string, read?: boolean): Promise<number[]>;
  skipped(): Promise<{ path: string; reason: string }[]>;
  /**
   * Photos (not videos) the detector run `run` has not looked at since they last changed, at most
   * `limit`, leaving out those under the `skip` folders (paths ending in the separator).
   */
  unseen(run: string, limit: number, skip?: readonly string[]): Promise<UnseenPhoto[]>;
  /** Forgets what was seen and read in the photos under the folders (paths ending in the separator), as if never looked at. */
  forgetSeenUnder(folders: readonly string[]): Promise<void>;
  /**
   * Replaces what the detectors saw in a photo and marks it looked at by `run`; nothing when the
   * photo left the catalog or its path changed meanwhile.
   */
  putSightings(rowid: number, path: string, run: string, seen: readonly Sighting[], text?: readonly string[]): Promise<void>;
  /** Lines of text read in the given photos (matched by `match` like the rest of their words). */
  textLines(rowids: readonly number[]): Promise<Map<number, string[]>>;
  /** Photos that show the label: rowid -> its best sighting. */
  seenWith(label: string): Promise<Map<number, Sighting>>;
  /** Photos (not videos) that show the label, each once with its best sighting: what questions ask for. */
  seenPhotos(label: string): Promise<SeenPhotoRow[]>;
  /** Everything seen in the given photos, best first. */
  sightings(rowids: readonly number[]): Promise<Map<number, Sighting[]>>;
  /** Every photo's summary with the generation it belongs to, read together. */
  summaries(): Promise<{ generation: number; rows: Summary[] }>;
  /** Full rows for the given rowids, in the given order (rows removed since are left out). */
  rows(rowids: number[]): Promise<PhotoRow[]>;
  byId(id: string): Promise<PhotoRow | undefined>;
  count(): Promise<number>;
  /** Moves with every scan that changed something, in any process sharing the storage. */
  generation(): Promise<number>;
  /** The key media URLs are signed with: made once, then the same for every process. */
  mediaSecret(): Promise<Buffer>;
  /**
   * Runs a scan while no other process sharing the storage runs one; waiting for another
   * process's scan ends (rejects) once `stop()` is true.
   */
  exclusive<T>(scan: () => Promise<T>, stop: () => boolean): Promise<T>;
  close(): Promise<void>;
}

/** The embedded catalog: today's SQLite tables (store.ts) behind the async interface. */
export function embeddedImageryStorage(db: Database, clock: () => Date = () => new Date()): ImageryStorage {
  migrateImagery(db, clock);
  return embeddedStorageOf(new ImageryStore(db));
}

/** An ImageryStore already migrated (tests keep it to look at rows directly). */
export function embeddedStorageOf(store: ImageryStore): ImageryStorage {
  const write = store.db.transaction((changes: ScanChanges, newId: () => string) => {
    for (const p of changes.removed) store.remove(p);
    for (const s of changes.skipped) store.skip(s);
    for (const { row, text } of changes.photos) store.upsert(row, text, newId);
    for (const f of changes.identified ?? []) store.identify(f);
    store.bumpGeneration();
  });
  return {
    knownFiles: async () => store.knownFiles(),
    async apply(changes, newId) {
      if (changes.removed.length || changes.skipped.length || changes.photos.length || changes.identified?.length) write(changes, newId);
    },
    match: async (word, read) => store.match(word, read),
    skipped: async () => store.skipped(),
    unseen: async (run, limit, skip) => store.unseen(run, limit, skip),
    forgetSeenUnder: async (folders) => store.forgetSeenUnder(folders),
    putSightings: async (rowid, path, run, seen, text) => store.putSightings(rowid, path, run, seen, text),
    textLines: async (rowids) => store.textLines(rowids),
    seenWith: async (label) => store.seenWith(label),
    seenPhotos: async (label) => store.seenPhotos(label),
    sightings: async (rowids) => store.sightings(rowids),
    summaries: async () => store.db.transaction(() => ({ generation: store.generation(), rows: store.summaries() }))(),
    rows: async (rowids) => store.rows(rowids),
    byId: async (id) => store.byId(id),
    count: async () => store.count(),
    generation: async () => store.generation(),
    mediaSecret: async () => store.mediaSecret(),
    // SQLite takes one writer at a time, and the catalog runs its own scans one after another.
    exclusive: (scan) => scan(),
    close: async () => {},
  };
}
