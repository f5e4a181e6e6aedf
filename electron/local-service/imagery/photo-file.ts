import { constants } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { sep } from 'node:path';
import type { PhotoRow } from './store';

/** A photo's file opened for reading its bytes, proven to be the file the catalog indexed. */
export interface IndexedFile {
  handle: FileHandle;
  size: number;
}

export type OpenedPhoto = { ok: true; file: IndexedFile } | { ok: false; reason: string };

/** Not following a symlink as the last component (absent on Windows, where there are none to follow by default). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

const inside = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** The path the open handle refers to (Linux names it in /proc; elsewhere the path is resolved again). */
async function realPathOf(handle: FileHandle, path: string): Promise<string> {
  if (process.platform === 'linux') {
    const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (named) return named;
  }
  return realpath(path);
}

/**
 * Opens a catalogued photo the way its bytes may be read: without following a symlink in its place,
 * a regular file with the device and inode it was indexed with, whose real path lies inside one of
 * the photo folders (so a folder swapped for a symlink cannot lead elsewhere). Everything read of
 * the photo is then read from this one handle: the path is not opened a second time. The caller
 * closes the handle.
 */
export async function openIndexed(row: Pick<PhotoRow, 'path' | 'dev' | 'ino'>, roots: readonly string[]): Promise<OpenedPhoto> {
  if (row.dev === null || row.ino === null) return { ok: false, reason: 'indexed before file identities were kept' };
  let handle: FileHandle;
  try {
    handle = await open(row.path, constants.O_RDONLY | NO_FOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ELOOP' ? 'the photo was replaced by a symbolic link' : `cannot be opened (${code ?? (err as Error).message})` };
  }
  try {
    const st = await handle.stat();
    let reason: string | null = null;
    if (!st.isFile()) reason = 'not a regular file';
    else if (st.dev !== row.dev || st.ino !== row.ino) reason = 'another file is in its place (device or inode differ)';
    else {
      const real = await realPathOf(handle, row.path);
      const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => null)));
      if (!realRoots.some((r) => r !== null && inside(real, r))) reason = 'its real path lies outside the photo folders';
    }
    if (reason === null) return { ok: true, file: { handle, size: st.size } };
    await handle.close();
    return { ok: false, reason };
  } catch (err) {
    await handle.close();
    return { ok: false, reason: `cannot be read (${(err as Error).message})` };
  }
}
