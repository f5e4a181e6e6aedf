import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { captureDateText } from '../../../shared/service/imagery';
import type { Logger } from '../../ground/logger';
import { readPhoto, photoMime } from './exif';
import { listFiles, type ListedFile } from './listing';
import { readVideo, videoMime } from './video';
import { addressText, normalizeRegionId, type Geocoder, type RegionTable } from './geocoder';
import type { ImageryStorage, ScanChanges } from './storage';
import { EMPTY_SNAPSHOT as EMPTY, snapshotOf, type Snapshot } from './snapshot';
import { openIndexed, type OpenedPhoto } from './photo-file';
import type { NewPhoto, PhotoRow } from './store';

export interface CatalogOptions {
  dirs: string[];
  store: ImageryStorage;
  geocode: Geocoder;
  regions: RegionTable;
  logger: Logger;
  /** Re-scan when a folder changes (fs.watch, debounced). Default true. */
  watch?: boolean;
  debounceMs?: number;
  /** Poll interval when a folder cannot be watched. */
  pollMs?: number;
  /** Photos whose metadata is read at once. */
  concurrency?: number;
  newId?: () => string;
  /** Told after each scan that completed (the detectors then look at new and changed photos). */
  onScanned?: (report: ScanReport) => void;
}

export interface ScanReport {
  found: number;
  read: number;
  removed: number;
  skipped: number;
  photos: number;
  durationMs: number;
}

/** Words a photo is found by: address and place names, description, keywords, camera, file name, date. */
export function searchText(p: Omit<NewPhoto, 'id'>, keywords: string[]): string {
  const name = basename(p.path, extname(p.path)).replace(/[_-]+/g, ' ');
  const date = p.year && p.month && p.taken_at ? captureDateText(new Date(`${p.taken_at.slice(0, 10)}T00:00:00Z`)) : '';
  return [p.address, p.city, p.country, p.description, keywords.join(' '), p.make, p.artist, name, date]
    .filter(Boolean)
    .join(' \n ');
}

/**
 * A catalog of geotagged photos from folders: scans (only files whose size or mtime changed are
 * read again), keeps rows and search text in SQLite, watches the folders and re-scans on change.
 */
export class ImageryCatalog {
  private snap: Snapshot = EMPTY;
  private running: Promise<ScanReport> | null = null;
  private pending: Promise<ScanReport> | null = null;
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private poller: NodeJS.Timeout | null = null;
  private firstScan: Promise<ScanReport> | null = null;
  private lastReport: ScanReport | null = null;
  private lastError: string | null = null;
  private refreshing: Promise<void> | null = null;
  /** Snapshot reads begun, and the number of the one installed. */
  private reads = 0;
  private installed = 0;
  private closed = false;
  /** Paths read again at the next scan whatever their size and mtime (their bytes were refused). */
  private suspect = new Set<string>();
  /** The folders the last scan could not read (joined), and whether the folders are watched. */
  private unreadable = '';
  private watching = false;
  dirs: string[];

  constructor(private readonly opts: CatalogOptions) {
    this.dirs = [...new Set(opts.dirs.map((d) => resolve(d)))];
  }

  /** Points the catalog at other folders: photos of folders no longer listed leave at the next scan. */
  async setDirs(dirs: string[]): Promise<ScanReport> {
    this.dirs = [...new Set(dirs.map((d) => resolve(d)))];
    this.stopWatching();
    this.unreadable = '';
    if (this.opts.watch !== false) this.startWatching();
    return this.scan();
  }

  /** Scan once and start watching; resolves when the first scan is done. */
  start(): Promise<ScanReport> {
    this.firstScan ??= this.scan();
    if (this.opts.watch !== false) this.startWatching();
    return this.firstScan;
  }

  /** Resolves once a first scan has succeeded (queries wait for it); a failed one is tried again. */
  async ready(): Promise<void> {
    try {
      await (this.firstScan ?? this.start());
    } catch {
      this.firstScan = this.scan();
      await this.firstScan;
    }
  }

  snapshot(): Snapshot {
    return this.snap;
  }

  /**
   * The snapshot, first read again if another process sharing the storage has scanned since
   * (one small read per call), so every process answers from the same catalog.
   */
  async current(): Promise<Snapshot> {
    const generation = await this.opts.store.generation();
    if (generation === this.snap.generation) return this.snap;
    await this.refresh();
    // The read joined may have begun before that scan was written; one begun now has not.
    if (this.snap.generation < generation) await this.refresh();
    return this.snap;
  }

  /** Concurrent callers share one read. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** Reads the snapshot; of reads that overlap, the one begun last is kept (a reset storage included). */
  private async read(): Promise<void> {
    const seq = ++this.reads;
    const snap = await this.buildSnapshot();
    if (seq > this.installed) {
      this.snap = snap;
      this.installed = seq;
    }
  }

  async status() {
    // What this process last read when the storage cannot be reached (the error says why).
    const snap = await this.current().catch(() => this.snap);
    return {
      dirs: this.dirs,
      photos: snap.rowids.length,
      skipped: await this.opts.store.skipped(),
      lastScan: this.lastReport,
      error: this.lastError,
    };
  }

  /**
   * Opens a catalogued photo for reading its bytes, checked to be the very file indexed inside
   * the photo folders (photo-file.ts). A file that is not is read again, or dropped, by a scan
   * started now.
   */
  async openPhoto(row: Pick<PhotoRow, 'path' | 'dev' | 'ino'>): Promise<OpenedPhoto> {
    const opened = await openIndexed(row, this.dirs);
    if (!opened.ok) {
      this.opts.logger.warn('imagery: a photo\'s file is not the one indexed; not read', { path: row.path, reason: opened.reason });
      this.suspect.add(row.path);
      this.scan().catch((err: Error) => this.opts.logger.error('imagery: scan failed', err));
    }
    return opened;
  }

  /** Scans run one at a time; a request during a scan runs one more scan after it. */
  scan(): Promise<ScanReport> {
    if (this.running) {
      this.pending ??= this.running.then(
        () => {
          this.pending = null;
          return this.scan();
        },
        () => {
          this.pending = null;
          return this.scan();
        },
      );
      return this.pending;
    }
    this.running = this.opts.store
      .exclusive(() => this.doScan(), () => this.closed)
      .then((report) => {
        this.opts.onScanned?.(report);
        return report;
      })
      .catch((err: Error) => {
        this.lastError = err.message;
        throw err;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async doScan(): Promise<ScanReport> {
    const t0 = performance.now();
    const { store, logger } = this.opts;
    const { files, unreadable } = await listFiles(this.dirs, logger);
    this.rewatch(unreadable);
    const known = await store.knownFiles();
    const seen = new Set(files.map((f) => f.path));
    const suspect = this.suspect;
    this.suspect = new Set();
    const identified: ScanChanges['identified'] = [];
    const changed = files.filter((f) => {
      const k = known.get(f.path);
      if (!k || k.mtime_ms !== f.mtime_ms || k.size !== f.size || suspect.has(f.path)) return true;
      // Another file renamed into the photo's place, however alike its size and mtime.
      if (k.dev !== null && (k.dev !== f.dev || k.ino !== f.ino)) return true;
      if (!k.skipped && k.dev === null) identified.push({ path: f.path, dev: f.dev, ino: f.ino });
      return false;
    });
    const gone = [...known.keys()].filter((p) => !seen.has(p));

    // Metadata is read with bounded concurrency; the changes are written in one transaction.
    const results: { file: ListedFile; res: Awaited<ReturnType<typeof readVideo>> }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < changed.length) {
        const file = changed[next++]!;
        const res = videoMime(file.path) ? await readVideo(file.path, file.sidecar) : await readPhoto(file.path);
        results.push({ file, res });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 8, changed.length) }, worker));

    const newId = this.opts.newId ?? randomUUID;
    const changes: ScanChanges = { removed: gone, skipped: [], photos: [], identified };
    for (const { file, res } of results) {
      if (!res.ok) {
        changes.skipped.push({ path: file.path, root: file.root, mtime_ms: file.mtime_ms, size: file.size, reason: res.reason });
        continue;
      }
      const m = res.meta;
      const place = this.place(m.lon, m.lat);
      const regionRaw = place?.regionId ?? (place?.countryCode ? this.opts.regions.byCode.get(place.countryCode)?.id : undefined);
      const regionId = regionRaw && /^\d+$/.test(regionRaw) ? normalizeRegionId(regionRaw) : null;
      const country = place?.country ?? (regionId ? this.opts.regions.get(regionId)?.name : undefined) ?? null;
      const row: Omit<NewPhoto, 'id'> = {
        path: file.path,
        root: file.root,
        mtime_ms: file.mtime_ms,
        size: file.size,
        mime: photoMime(file.path) ?? videoMime(file.path) ?? 'application/octet-stream',
        lon: m.lon,
        lat: m.lat,
        direction: m.direction,
        taken_at: m.takenAt,
        year: m.year,
        month: m.month,
        description: m.description,
        keywords: JSON.stringify(m.keywords),
        make: m.make,
        artist: m.artist,
        width: m.width,
        height: m.height,
        interactive: m.interactive ? 1 : 0,
        city: place?.city ?? null,
        country,
        country_code: place?.countryCode ?? null,
        region_id: regionId,
        address: addressText({ city: place?.city, country: country ?? undefined }, m.lon, m.lat),
        is_video: videoMime(file.path) ? 1 : 0,
        duration: res.duration ?? null,
        dev: file.dev,
        ino: file.ino,
      };
      changes.photos.push({ row, text: searchText(row, m.keywords) });
    }
    await store.apply(changes, newId);
    if (changed.length || gone.length || this.snap === EMPTY) {
      // Read after the write (a refresh under way may have read before it).
      await this.read();
    }
    const report: ScanReport = {
      found: files.length,
      read: changed.length,
      removed: gone.length,
      skipped: changes.skipped.length,
      photos: this.snap.rowids.length,
      durationMs: performance.now() - t0,
    };
    this.lastReport = report;
    this.lastError = null;
    if (changed.length || gone.length) logger.info('imagery: catalog scanned', report);
    return report;
  }

  /** A failing injected geocoder costs the address text, not the catalog. */
  private place(lon: number, lat: number) {
    try {
      return this.opts.geocode(lon, lat);
    } catch (err) {
      this.opts.logger.warn('imagery: geocoder failed', { lon, lat, error: (err as Error).message });
      return null;
    }
  }

  private async buildSnapshot(): Promise<Snapshot> {
    const { generation, rows } = await this.opts.store.summaries();
    return snapshotOf(rows, generation);
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.scan().catch((err: Error) => this.opts.logger.error('imagery: scan failed', err));
    }, this.opts.debounceMs ?? 500);
    this.timer.unref();
  }

  private startWatching(unreadable: readonly string[] = []): void {
    if (this.watchers.length || this.poller) return;
    this.watching = true;
    let unwatched = unreadable.length > 0;
    for (const dir of this.dirs) {
      if (unreadable.includes(dir)) continue;
      try {
        const w = watch(dir, { recursive: true, persistent: false }, () => this.schedule());
        w.on('error', (err) => this.opts.logger.warn('imagery: folder watch failed', { dir, error: err.message }));
        this.watchers.push(w);
      } catch (err) {
        unwatched = true;
        this.opts.logger.warn('imagery: cannot watch folder; polling it', { dir, error: (err as Error).message });
      }
    }
    // Folders that cannot be watched (missing yet, network mounts) are re-scanned by mtime instead.
    if (unwatched) {
      this.poller = setInterval(() => this.schedule(), this.opts.pollMs ?? 30_000);
      this.poller.unref();
    }
  }

  /**
   * A folder's watch follows the folder it was set on: one moved away (or gone) and back is
   * watched afresh, polled while it cannot be read.
   */
  private rewatch(unreadable: string[]): void {
    const key = unreadable.join('\0');
    if (key === this.unreadable) return;
    this.unreadable = key;
    if (this.opts.watch === false || this.closed || !this.watching) return;
    this.stopWatching();
    this.startWatching(unreadable);
  }

  private stopWatching(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watching = false;
    this.stopWatching();
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
