import { randomBytes } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './plugin-types';

export interface PhotoRow {
  rowid: number;
  id: string;
  path: string;
  root: string;
  mtime_ms: number;
  size: number;
  mime: string;
  lon: number;
  lat: number;
  direction: number | null;
  taken_at: string | null;
  year: number | null;
  month: number | null;
  description: string | null;
  keywords: string;
  make: string | null;
  artist: string | null;
  width: number | null;
  height: number | null;
  interactive: number;
  city: string | null;
  country: string | null;
  country_code: string | null;
  region_id: string | null;
  address: string;
  is_video: number;
  /** Seconds, videos only. */
  duration: number | null;
  /** Device and inode of the file indexed (null in rows from before they were kept, until the next scan). */
  dev: number | null;
  ino: number | null;
}

export type NewPhoto = Omit<PhotoRow, 'rowid'>;
export type Summary = Pick<PhotoRow, 'rowid' | 'lon' | 'lat' | 'year' | 'region_id' | 'taken_at' | 'id' | 'is_video'>;

/** One thing a detector saw in a photo; box = left, top, width, height in the photo's pixels. */
export interface Sighting {
  model: string;
  label: string;
  score: number;
  box: [number, number, number, number];
}

interface SightingRow {
  photo_rowid: number;
  model: string;
  label: string;
  score: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A photo that shows a label, with what questions need of it (query/sources/detections.ts). */
export interface SeenPhotoRow extends Pick<PhotoRow, 'rowid' | 'id' | 'lon' | 'lat' | 'taken_at' | 'direction'> {
  sighting: Sighting;
}

/** The columns of a detection joined to its photo, as both backends select them. */
export const SEEN_PHOTO = 'p.rowid, p.id, p.lon, p.lat, p.taken_at, p.direction, d.photo_rowid, d.model, d.label, d.score, d.x, d.y, d.w, d.h';

/** Detection rows joined to their photos, best first: each photo once, with its best. */
export function bestPerPhoto(rows: readonly (SightingRow & Omit<SeenPhotoRow, 'sighting'>)[]): SeenPhotoRow[] {
  const seen = new Set<number>();
  const out: SeenPhotoRow[] = [];
  for (const r of rows) {
    if (seen.has(r.rowid)) continue;
    seen.add(r.rowid);
    out.push({ rowid: r.rowid, id: r.id, lon: r.lon, lat: r.lat, taken_at: r.taken_at, direction: r.direction, sighting: sightingOf(r) });
  }
  return out;
}

export const sightingOf = (r: SightingRow): Sighting => ({ model: r.model, label: r.label, score: r.score, box: [r.x, r.y, r.w, r.h] });

/** What the catalog knows of a file it looked at. */
export interface KnownFile {
  mtime_ms: number;
  size: number;
  skipped: boolean;
  /** Of indexed photos; null for skipped files and rows from before they were kept. */
  dev: number | null;
  ino: number | null;
}

/** A photo the detectors have yet to look at. */
export type UnseenPhoto = Pick<PhotoRow, 'rowid' | 'path' | 'dev' | 'ino'>;

/** A file by path, device and inode. */
export interface FileIdentity {
  path: string;
  dev: number | null;
  ino: number | null;
}

export interface SkippedRow {
  path: string;
  root: string;
  mtime_ms: number;
  size: number;
  reason: string;
}

/** Prepared statements over the imagery tables. */
export class ImageryStore {
  private readonly st;
  /** `rowid IN (?, …)` statements by parameter count (page sizes repeat). */
  private readonly inStatements = new Map<number, BetterSqlite3.Statement>();

  constructor(readonly db: Database) {
    this.st = {
      files: db.prepare('SELECT path, mtime_ms, size, dev, ino FROM imagery_photo'),
      skippedFiles: db.prepare('SELECT path, mtime_ms, size FROM imagery_skipped'),
      byPath: db.prepare('SELECT rowid, id FROM imagery_photo WHERE path = ?'),
      insert: db.prepare(`INSERT INTO imagery_photo (id, path, root, mtime_ms, size, mime, lon, lat, direction, taken_at,
          year, month, description, keywords, make, artist, width, height, interactive, city, country, country_code,
          region_id, address, is_video, duration, dev, ino)
        VALUES (@id, @path, @root, @mtime_ms, @size, @mime, @lon, @lat, @direction, @taken_at, @year, @month,
          @description, @keywords, @make, @artist, @width, @height, @interactive, @city, @country, @country_code,
          @region_id, @address, @is_video, @duration, @dev, @ino)`),
      update: db.prepare(`UPDATE imagery_photo SET root=@root, mtime_ms=@mtime_ms, size=@size, mime=@mime, lon=@lon,
          lat=@lat, direction=@direction, taken_at=@taken_at, year=@year, month=@month, description=@description,
          keywords=@keywords, make=@make, artist=@artist, width=@width, height=@height, interactive=@interactive,
          city=@city, country=@country, country_code=@country_code, region_id=@region_id, address=@address,
          is_video=@is_video, duration=@duration, dev=@dev, ino=@ino
        WHERE rowid=@rowid`),
      identify: db.prepare('UPDATE imagery_photo SET dev = @dev, ino = @ino WHERE path = @path'),
      deletePhoto: db.prepare('DELETE FROM imagery_photo WHERE rowid = ?'),
      ftsInsert: db.prepare('INSERT INTO imagery_fts (rowid, text) VALUES (?, ?)'),
      ftsDelete: db.prepare('DELETE FROM imagery_fts WHERE rowid = ?'),
      ftsMatch: db.prepare('SELECT rowid FROM imagery_fts WHERE imagery_fts MATCH ?').pluck(),
      putSkipped: db.prepare(
        'INSERT OR REPLACE INTO imagery_skipped (path, root, mtime_ms, size, reason) VALUES (@path, @root, @mtime_ms, @size, @reason)',
      ),
      deleteSkipped: db.prepare('DELETE FROM imagery_skipped WHERE path = ?'),
      listSkipped: db.prepare('SELECT path, reason FROM imagery_skipped ORDER BY path'),
      summaries: db.prepare('SELECT rowid, lon, lat, year, region_id, taken_at, id, is_video FROM imagery_photo'),
      byId: db.prepare('SELECT * FROM imagery_photo WHERE id = ?'),
      count: db.prepare('SELECT count(*) FROM imagery_photo').pluck(),
      getMeta: db.prepare('SELECT value FROM imagery_meta WHERE key = ?').pluck(),
      putMeta: db.prepare('INSERT OR REPLACE INTO imagery_meta (key, value) VALUES (?, ?)'),
      forgetSeen: db.prepare('DELETE FROM imagery_seen WHERE photo_rowid = ?'),
      forgetSightings: db.prepare('DELETE FROM imagery_detection WHERE photo_rowid = ?'),
      forgetText: db.prepare('DELETE FROM imagery_text WHERE photo_rowid = ?'),
      forgetTextFts: db.prepare('DELETE FROM imagery_text_fts WHERE rowid = ?'),
      putText: db.prepare('INSERT INTO imagery_text (photo_rowid, lines) VALUES (?, ?)'),
      putTextFts: db.prepare('INSERT INTO imagery_text_fts (rowid, text) VALUES (?, ?)'),
      textMatch: db.prepare('SELECT rowid FROM imagery_text_fts WHERE imagery_text_fts MATCH ?').pluck(),
      unseen: db.prepare(`SELECT p.rowid, p.path, p.dev, p.ino FROM imagery_photo p
          WHERE p.is_video = 0 AND NOT EXISTS (SELECT 1 FROM imagery_seen s WHERE s.photo_rowid = p.rowid AND s.run = ?)
          AND NOT EXISTS (SELECT 1 FROM json_each(?) d WHERE substr(p.path, 1, length(d.value)) = d.value)
          ORDER BY p.rowid LIMIT ?`),
      under: db
        .prepare('SELECT p.rowid FROM imagery_photo p, json_each(?) d WHERE substr(p.path, 1, length(d.value)) = d.value')
        .pluck(),
      photoAt: db.prepare('SELECT rowid FROM imagery_photo WHERE rowid = ? AND path = ?').pluck(),
      putSeen: db.prepare('INSERT OR REPLACE INTO imagery_seen (photo_rowid, run) VALUES (?, ?)'),
      putSighting: db.prepare(
        'INSERT INTO imagery_detection (photo_rowid, model, label, score, x, y, w, h) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      seenWith: db.prepare('SELECT * FROM imagery_detection WHERE label = ? ORDER BY score DESC'),
      seenPhotos: db.prepare(`SELECT ${SEEN_PHOTO} FROM imagery_detection d JOIN imagery_photo p ON p.rowid = d.photo_rowid
        WHERE d.label = ? AND p.is_video = 0 ORDER BY d.score DESC`),
      bumpGeneration: db.prepare(
        "INSERT INTO imagery_meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
      ),
    };
  }

  /** Path -> mtime/size (and device/inode of photos) of everything already looked at (indexed or skipped). */
  knownFiles(): Map<string, KnownFile> {
    const out = new Map<string, KnownFile>();
    for (const r of this.st.files.all() as (FileIdentity & { mtime_ms: number; size: number })[])
      out.set(r.path, { mtime_ms: r.mtime_ms, size: r.size, skipped: false, dev: r.dev, ino: r.ino });
    for (const r of this.st.skippedFiles.all() as { path: string; mtime_ms: number; size: number }[])
      out.set(r.path, { mtime_ms: r.mtime_ms, size: r.size, skipped: true, dev: null, ino: null });
    return out;
  }

  /** Records the device and inode of a photo indexed before they were kept. */
  identify(f: FileIdentity): void {
    this.st.identify.run(f);
  }

  /** Insert or update a photo (its id stays stable across edits of the file) and its text row. */
  upsert(photo: Omit<NewPhoto, 'id'> & { id?: string }, text: string, newId: () => string): void {
    this.st.deleteSkipped.run(photo.path);
    const existing = this.st.byPath.get(photo.path) as { rowid: number; id: string } | undefined;
    if (existing) {
      // A changed file is looked at again by the detectors.
      this.forgetSightings(existing.rowid);
      this.st.update.run({ ...photo, rowid: existing.rowid });
      this.st.ftsDelete.run(existing.rowid);
      this.st.ftsInsert.run(existing.rowid, text);
    } else {
      const info = this.st.insert.run({ ...photo, id: photo.id ?? newId() });
      this.st.ftsInsert.run(info.lastInsertRowid, text);
    }
  }

  skip(row: SkippedRow): void {
    this.remove(row.path);
    this.st.putSkipped.run(row);
  }

  /** Forget a file (deleted from disk or from the catalog's folders). */
  remove(path: string): void {
    const existing = this.st.byPath.get(path) as { rowid: number } | undefined;
    if (existing) {
      this.forgetSightings(existing.rowid);
      this.st.ftsDelete.run(existing.rowid);
      this.st.deletePhoto.run(existing.rowid);
    }
    this.st.deleteSkipped.run(path);
  }

  /** Rowids whose text, or (unless `read` is false) the text read in the photo, holds the token (an FTS5 phrase of one token). */
  match(token: string, read_ = true): number[] {
    const phrase = `"${token.replace(/"/g, '""')}"`;
    const out = this.st.ftsMatch.all(phrase) as number[];
    const read = read_ ? (this.st.textMatch.all(phrase) as number[]) : [];
    return read.length ? [...new Set([...out, ...read])] : out;
  }

  /** Lines of text read in the given photos. */
  textLines(rowids: readonly number[]): Map<number, string[]> {
    const out = new Map<number, string[]>();
    for (let i = 0; i < rowids.length; i += 500) {
      const chunk = rowids.slice(i, i + 500);
      const rows = this.db
        .prepare(`SELECT photo_rowid, lines FROM imagery_text WHERE photo_rowid IN (${chunk.map(() => '?').join(',')})`)
        .all(...chunk) as { photo_rowid: number; lines: string }[];
      for (const r of rows) out.set(r.photo_rowid, JSON.parse(r.lines) as string[]);
    }
    return out;
  }

  private forgetSightings(rowid: number): void {
    this.st.forgetSeen.run(rowid);
    this.st.forgetSightings.run(rowid);
    this.forgetText(rowid);
  }

  private forgetText(rowid: number): void {
    this.st.forgetText.run(rowid);
    this.st.forgetTextFts.run(rowid);
  }

  /** Photos (videos have no frame) the detector run `run` has not looked at since they changed. */
  unseen(run: string, limit: number, skip: readonly string[] = []): UnseenPhoto[] {
    return this.st.unseen.all(run, JSON.stringify(skip), limit) as UnseenPhoto[];
  }

  /** Forgets what was seen and read in the photos under the folders (paths ending in the separator). */
  forgetSeenUnder(folders: readonly string[]): void {
    if (!folders.length) return;
    this.db.transaction(() => {
      for (const rowid of this.st.under.all(JSON.stringify(folders)) as number[]) {
        this.st.forgetSightings.run(rowid);
        this.forgetText(rowid);
        this.st.forgetSeen.run(rowid);
      }
    })();
  }

  /** Replaces what was seen in a photo, unless it left the catalog or moved meanwhile. */
  putSightings(rowid: number, path: string, run: string, seen: readonly Sighting[], text: readonly string[] = []): void {
    this.db.transaction(() => {
      if (this.st.photoAt.get(rowid, path) === undefined) return;
      this.st.forgetSightings.run(rowid);
      this.forgetText(rowid);
      for (const d of seen) this.st.putSighting.run(rowid, d.model, d.label, d.score, ...d.box);
      if (text.length) {
        this.st.putText.run(rowid, JSON.stringify(text));
        this.st.putTextFts.run(rowid, text.join('\n'));
      }
      this.st.putSeen.run(rowid, run);
    })();
  }

  /** Photos that show the label: rowid -> its best sighting. */
  seenWith(label: string): Map<number, Sighting> {
    const out = new Map<number, Sighting>();
    for (const r of this.st.seenWith.all(label) as SightingRow[]) if (!out.has(r.photo_rowid)) out.set(r.photo_rowid, sightingOf(r));
    return out;
  }

  /** Photos (not videos) that show the label, each once with its best sighting. */
  seenPhotos(label: string): SeenPhotoRow[] {
    return bestPerPhoto(this.st.seenPhotos.all(label) as (SightingRow & SeenPhotoRow)[]);
  }

  /** Everything seen in the given photos, best first. */
  sightings(rowids: readonly number[]): Map<number, Sighting[]> {
    const out = new Map<number, Sighting[]>();
    for (let i = 0; i < rowids.length; i += 500) {
      const chunk = rowids.slice(i, i + 500);
      const rows = this.db
        .prepare(`SELECT * FROM imagery_detection WHERE photo_rowid IN (${chunk.map(() => '?').join(',')}) ORDER BY score DESC`)
        .all(...chunk) as SightingRow[];
      for (const r of rows) {
        const list = out.get(r.photo_rowid) ?? [];
        list.push(sightingOf(r));
        out.set(r.photo_rowid, list);
      }
    }
    return out;
  }

  skipped(): { path: string; reason: string }[] {
    return this.st.listSkipped.all() as { path: string; reason: string }[];
  }

  summaries(): Summary[] {
    return this.st.summaries.all() as Summary[];
  }

  /** Full rows for the given rowids, in the given order. */
  rows(rowids: number[]): PhotoRow[] {
    if (!rowids.length) return [];
    const found = new Map<number, PhotoRow>();
    // Chunked: SQLite limits the number of bound parameters per statement.
    for (let i = 0; i < rowids.length; i += 500) {
      const chunk = rowids.slice(i, i + 500);
      let stmt = this.inStatements.get(chunk.length);
      if (!stmt) {
        stmt = this.db.prepare(`SELECT * FROM imagery_photo WHERE rowid IN (${chunk.map(() => '?').join(',')})`);
        this.inStatements.set(chunk.length, stmt);
      }
      const rows = stmt.all(...chunk) as PhotoRow[];
      for (const r of rows) found.set(r.rowid, r);
    }
    return rowids.map((id) => found.get(id)).filter((r): r is PhotoRow => !!r);
  }

  byId(id: string): PhotoRow | undefined {
    return this.st.byId.get(id) as PhotoRow | undefined;
  }

  count(): number {
    return this.st.count.get() as number;
  }

  /** Counts the scans that changed the catalog: a process sharing the data folder rebuilds its snapshot when it moves. */
  generation(): number {
    return Number(this.st.getMeta.get('generation') ?? 0);
  }

  bumpGeneration(): void {
    this.st.bumpGeneration.run();
  }

  /** The key media URLs are signed with; made once per data folder. */
  mediaSecret(): Buffer {
    const hex = this.st.getMeta.get('media_secret') as string | undefined;
    if (hex) return Buffer.from(hex, 'hex');
    const secret = randomBytes(32);
    this.st.putMeta.run('media_secret', secret.toString('hex'));
    return secret;
  }
}
