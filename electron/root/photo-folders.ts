import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { PhotoStatus } from '../../shared/rpc/methods/photos';
import { RpcError } from '../../shared/rpc/errors';
import type { Logger } from '../ground/logger';
import type { ImageryPlugin } from '../local-service/imagery';
import { writeFileAtomic } from '../ground/atomic-file';

const SKIPPED_SHOWN = 200;

/**
 * The user's photo folders, and those of them indexed without the detectors: saved in the data
 * folder, applied to the bundled imagery catalog.
 */
export class PhotoFolders {
  private readonly file: string;
  private folders: string[];
  private off: string[];

  constructor(
    dataDir: string,
    private readonly logger: Logger,
  ) {
    this.file = join(dataDir, 'photo-folders.json');
    ({ folders: this.folders, off: this.off } = this.load());
  }

  /** Saved folders; unreadable settings count as none (and are logged), never as a crash. */
  private load(): { folders: string[]; off: string[] } {
    if (!existsSync(this.file)) return { folders: [], off: [] };
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((f): f is string => typeof f === 'string') : []);
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as { folders?: unknown; detectionOff?: unknown };
      const folders = strings(data.folders);
      return { folders, off: strings(data.detectionOff).filter((f) => folders.includes(f)) };
    } catch (e) {
      this.logger.warn('Photo folder settings unreadable; starting with none', String(e));
      return { folders: [], off: [] };
    }
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify({ folders: this.folders, detectionOff: this.off }, null, 2));
  }

  list(): string[] {
    return [...this.folders];
  }

  /** Folders indexed without the detectors. */
  detectionOff(): string[] {
    return [...this.off];
  }

  /** Turns the detectors on or off for one saved folder, then tells the catalog. */
  async setDetection(folder: string, on: boolean, plugin: ImageryPlugin | null): Promise<void> {
    const path = resolve(folder);
    if (!this.folders.includes(path)) throw new RpcError('NOT_FOUND', `Not one of the photo folders: ${folder}`);
    this.off = on ? this.off.filter((f) => f !== path) : [...new Set([...this.off, path])];
    this.save();
    await plugin?.setDetectionOff(this.off);
  }

  /** Checks and saves new folders, then points the catalog at them. */
  async set(folders: string[], plugin: ImageryPlugin | null): Promise<void> {
    const problems: { path: string; message: string }[] = [];
    const resolved = [...new Set(folders.map((f) => f.trim()).filter(Boolean))].map((f) => {
      if (!isAbsolute(f)) problems.push({ path: f, message: 'Use a full path (for example /home/me/Pictures)' });
      else if (!existsSync(f) || !statSync(f).isDirectory()) problems.push({ path: f, message: 'No such folder' });
      return resolve(f);
    });
    if (problems.length)
      throw new RpcError('VALIDATION', `Not a photo folder: ${problems.map((p) => `${p.path} (${p.message})`).join('; ')}`, {
        issues: problems,
      });
    this.folders = resolved;
    // A folder removed takes its switch with it.
    this.off = this.off.filter((f) => resolved.includes(f));
    this.save();
    await plugin?.setDetectionOff(this.off);
    await plugin?.setPhotoDirs(resolved);
  }

  async status(plugin: ImageryPlugin | null): Promise<PhotoStatus> {
    const perceptionOf = (p: ImageryPlugin | null) => {
      const x = p?.perception();
      return x ? { state: x.state, done: x.done, total: x.total, failed: x.failed, failures: x.failures, error: x.error } : null;
    };
    const catalog = plugin?.catalog();
    if (!catalog)
      return {
        folders: this.list(),
        detectionOff: this.detectionOff(),
        photos: 0,
        skipped: [],
        skippedTotal: 0,
        lastScan: null,
        error: 'The bundled service is not running',
        perception: null,
      };
    const s = await catalog.status();
    return {
      folders: this.list(),
      detectionOff: this.detectionOff(),
      photos: s.photos,
      skipped: s.skipped.slice(0, SKIPPED_SHOWN),
      skippedTotal: s.skipped.length,
      lastScan: s.lastScan,
      error: s.error,
      perception: perceptionOf(plugin),
    };
  }
}
