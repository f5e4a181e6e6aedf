import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { PhotoStatus } from '../../shared/rpc/methods/photos';
import { RpcError } from '../../shared/rpc/errors';
import type { Logger } from '../ground/logger';
import type { ImageryPlugin } from '../local-service/imagery';
import { writeFileAtomic } from '../ground/atomic-file';

const SKIPPED_SHOWN = 200;

/** The user's photo folders: saved in the data folder, applied to the bundled imagery catalog. */
export class PhotoFolders {
  private readonly file: string;
  private folders: string[];

  constructor(
    dataDir: string,
    private readonly logger: Logger,
  ) {
    this.file = join(dataDir, 'photo-folders.json');
    this.folders = this.load();
  }

  /** Saved folders; unreadable settings count as none (and are logged), never as a crash. */
  private load(): string[] {
    if (!existsSync(this.file)) return [];
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as { folders?: unknown };
      return Array.isArray(data.folders) ? data.folders.filter((f): f is string => typeof f === 'string') : [];
    } catch (e) {
      this.logger.warn('Photo folder settings unreadable; starting with none', String(e));
      return [];
    }
  }

  list(): string[] {
    return [...this.folders];
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
    writeFileAtomic(this.file, JSON.stringify({ folders: resolved }, null, 2));
    this.folders = resolved;
    await plugin?.setPhotoDirs(resolved);
  }

  async status(plugin: ImageryPlugin | null): Promise<PhotoStatus> {
    const perceptionOf = (p: ImageryPlugin | null) => {
      const x = p?.perception();
      return x ? { state: x.state, done: x.done, total: x.total, failed: x.failed, error: x.error } : null;
    };
    const catalog = plugin?.catalog();
    if (!catalog)
      return { folders: this.list(), photos: 0, skipped: [], skippedTotal: 0, lastScan: null, error: 'The bundled service is not running', perception: null };
    const s = await catalog.status();
    return {
      folders: this.list(),
      photos: s.photos,
      skipped: s.skipped.slice(0, SKIPPED_SHOWN),
      skippedTotal: s.skipped.length,
      lastScan: s.lastScan,
      error: s.error,
      perception: perceptionOf(plugin),
    };
  }
}
