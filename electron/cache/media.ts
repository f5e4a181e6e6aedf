import type { CacheDb } from './db';
import type { MediaEntry } from './types';

// Images and other media, cached on first view so they show offline.

export function getMedia(c: CacheDb, url: string): MediaEntry | null {
  const r = c.stmt('SELECT url, content_type, bytes, fetched_at FROM media WHERE url = ?').get(url) as
    | { url: string; content_type: string; bytes: Buffer; fetched_at: number }
    | undefined;
  return r ? { url: r.url, contentType: r.content_type, bytes: r.bytes, fetchedAt: r.fetched_at } : null;
}

export function putMedia(c: CacheDb, url: string, contentType: string, bytes: Uint8Array, fetchedAt = Date.now()): void {
  c.stmt(
    `INSERT INTO media (url, content_type, size, bytes, fetched_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (url) DO UPDATE SET content_type = excluded.content_type, size = excluded.size,
       bytes = excluded.bytes, fetched_at = excluded.fetched_at`,
  ).run(url, contentType, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), fetchedAt);
  if (!c.db.inTransaction) c.afterWrite();
}
