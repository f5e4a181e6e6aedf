import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../ground/logger';
import { photoMime } from './exif';
import { findSidecar, videoMime } from './video';

/** A photo or video file found in a folder, as the catalog compares it with what it knows. */
export interface ListedFile {
  path: string;
  root: string;
  mtime_ms: number;
  size: number;
  dev: number;
  ino: number;
  sidecar?: string;
}

/**
 * The photos and videos under the folders (hidden entries and symbolic links left out), and
 * the folders that could not be read at all.
 */
export async function listFiles(dirs: readonly string[], logger: Logger): Promise<{ files: ListedFile[]; unreadable: string[] }> {
  const out: ListedFile[] = [];
  const walk = async (root: string, dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (dir === root) throw err;
      logger.warn('imagery: folder not readable', { dir, error: (err as Error).message });
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(root, p);
      else if (e.isFile() && (photoMime(p) || videoMime(p))) {
        try {
          const s = await lstat(p);
          // Replaced by a link or folder since the listing: the next scan settles it.
          if (!s.isFile()) continue;
          const file: ListedFile = { path: p, root, mtime_ms: s.mtimeMs, size: s.size, dev: s.dev, ino: s.ino };
          if (videoMime(p)) {
            // A sidecar added, edited or removed changes the video's entry: its mtime is folded in,
            // and a video without one is marked a millisecond early so removing it is a change too.
            file.sidecar = findSidecar(p);
            const side = file.sidecar ? await stat(file.sidecar).catch(() => null) : null;
            file.mtime_ms = Math.max(s.mtimeMs, side?.mtimeMs ?? 0) + (file.sidecar ? 0 : -1e-3);
          }
          out.push(file);
        } catch {
          // Removed between listing and stat: the next scan settles it.
        }
      }
    }
  };
  const unreadable: string[] = [];
  for (const root of dirs) {
    try {
      await walk(root, root);
    } catch (err) {
      unreadable.push(root);
      logger.warn('imagery: photo folder not readable', { dir: root, error: (err as Error).message });
    }
  }
  return { files: out, unreadable };
}
