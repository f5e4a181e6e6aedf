import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { open, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RpcError } from '../../shared/rpc/errors';

/** One file being sent in chunks, or sent whole and waiting for the call that uses it. */
export interface StagedFile {
  id: string;
  /** Its own folder, so the staged copy keeps the user's file name. */
  dir: string;
  file: string;
  name: string;
  size: number;
  received: number;
}

export interface StagingOptions {
  /** The staging folder; emptied at creation (files a previous run left) and at close. */
  dir: string;
  /** Prefix of the ids handed out (says what a staged file is for). */
  prefix: string;
  /** The staged copy's name when the given one has none left (only path parts). */
  fallbackName: string;
}

/** Keeps a user's file name as the staged copy's name (readers and errors go by it), minus path parts. */
export function safeName(name: string, fallback = 'file'): string {
  let base = [...basename(name.replace(/\\/g, '/'))].map((c) => (c.charCodeAt(0) < 32 || '<>:"|?*'.includes(c) ? '_' : c)).join('');
  if (base === '' || base === '.' || base === '..') return fallback;
  // File systems take 255 bytes a name: a long one loses the end of its stem, never its type.
  const ext = /(\.osm\.pbf|\.[^.]{1,12})$/i.exec(base)?.[0] ?? '';
  while (Buffer.byteLength(base) > 200) base = [...base.slice(0, base.length - ext.length)].slice(0, -1).join('') + ext;
  return base;
}

/**
 * Files the page sends in chunks that each fit one call (the browser host's frames are bounded),
 * staged on disk under an id until a call takes them. Used for data layers and for the files of
 * a question alike.
 */
export function createStaging(opts: StagingOptions) {
  rmSync(opts.dir, { recursive: true, force: true });
  const files = new Map<string, StagedFile>();

  const must = (id: string): StagedFile => {
    const f = files.get(id);
    if (!f) throw new RpcError('NOT_FOUND', `No staged file ${id}: it was dropped, already used or never started`);
    return f;
  };

  function take(id: string): StagedFile {
    const u = must(id);
    if (u.received !== u.size) throw new RpcError('CONFLICT', `${u.name}: the upload is incomplete (${u.received} of ${u.size} bytes)`);
    files.delete(id);
    return u;
  }

  async function create(name: string, size: number): Promise<StagedFile> {
    const id = `${opts.prefix}-${randomUUID()}`;
    const dir = join(opts.dir, id);
    mkdirSync(dir, { recursive: true });
    const f: StagedFile = { id, dir, file: join(dir, safeName(name, opts.fallbackName)), name: safeName(name, opts.fallbackName), size, received: 0 };
    await writeFile(f.file, '');
    files.set(id, f);
    return f;
  }

  return {
    /** Announces a file of `size` bytes to come in chunks, in order. */
    start: create,
    /** Stages bytes already at hand (a queued question's file, sent again when it runs). */
    async put(name: string, bytes: Uint8Array): Promise<StagedFile> {
      const f = await create(name, bytes.byteLength);
      await writeFile(f.file, bytes);
      f.received = f.size;
      return f;
    },
    async chunk(id: string, offset: number, dataBase64: string): Promise<StagedFile> {
      const u = must(id);
      if (offset !== u.received) throw new RpcError('CONFLICT', `${u.name}: chunk at byte ${offset}, expected byte ${u.received}`);
      const bytes = Buffer.from(dataBase64, 'base64');
      if (u.received + bytes.length > u.size) throw new RpcError('VALIDATION', `${u.name}: more bytes than the ${u.size} announced`);
      // Counted before the write so a chunk sent twice at once is refused, not written twice.
      u.received += bytes.length;
      // Opened per chunk: a file the page abandons holds no file descriptor.
      try {
        const handle = await open(u.file, 'r+');
        try {
          await handle.write(bytes, 0, bytes.length, offset);
        } finally {
          await handle.close();
        }
      } catch (e) {
        if (!files.has(id)) throw new RpcError('CANCELLED', `${u.name}: the upload was cancelled`);
        u.received = offset;
        throw new RpcError('INTERNAL', `${u.name}: could not be written to the staging folder (${(e as Error).message})`);
      }
      return u;
    },
    /** Hands a complete staged file to its one user: no longer listed, the caller removes it when done. */
    take,
    /** Takes a staged file, reads it whole and removes it. */
    async read(id: string): Promise<{ name: string; bytes: Buffer }> {
      const u = take(id);
      try {
        return { name: u.name, bytes: await readFile(u.file) };
      } finally {
        await rm(u.dir, { recursive: true, force: true });
      }
    },
    remove: (f: StagedFile) => rm(f.dir, { recursive: true, force: true }),
    has: (id: string) => files.has(id),
    /** Removes a staged file whether complete or not; false when none is staged under that id. */
    async drop(id: string): Promise<boolean> {
      const u = files.get(id);
      if (!u) return false;
      files.delete(id);
      await rm(u.dir, { recursive: true, force: true });
      return true;
    },
    async close(): Promise<void> {
      files.clear();
      rmSync(opts.dir, { recursive: true, force: true });
    },
  };
}
export type Staging = ReturnType<typeof createStaging>;
