import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgResultStore } from '../../../electron/local-service/pg/pg-result-store';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

let cluster: PgCluster;
let pool: pg.Pool;
beforeAll(async () => {
  cluster = startPgCluster();
  pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 4 });
});
afterAll(async () => {
  await pool?.end();
  cluster?.stop();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('uploads on PostgreSQL', () => {
  it('keeps a large file in 512 KiB chunks, once per hash, and reads it back whole', async () => {
    const store = await openPgResultStore({ pool });
    // Random bytes do not compress: 3 MB of them stay about 3 MB in gzip, six chunks.
    const bytes = Buffer.concat([randomBytes(3 * 1024 * 1024), Buffer.from('tail')]);
    const hash = sha(bytes);
    await store.keepUpload(hash, bytes);
    await store.keepUpload(hash, bytes);
    const gz = gzipSync(bytes, { level: 1 }).length;
    const chunks = (await pool.query<{ seq: number; n: number }>('SELECT seq, length(data) AS n FROM upload_chunks WHERE hash = $1 ORDER BY seq', [hash])).rows;
    expect(chunks.map((c) => c.seq)).toEqual(Array.from({ length: Math.ceil(gz / (512 * 1024)) }, (_, i) => i));
    expect(chunks.slice(0, -1).every((c) => c.n === 512 * 1024)).toBe(true);
    expect((await pool.query('SELECT count(*)::int AS n, max(size)::int AS size FROM uploads')).rows[0]).toEqual({ n: 1, size: bytes.length });
    expect((await store.readUpload(hash))!.equals(bytes)).toBe(true);
    expect(await store.readUpload(sha(Buffer.from('never kept')))).toBeNull();
    await store.close();
  });

  it('reads a file kept whole in its row by an earlier build, and drops chunks with their file', async () => {
    const store = await openPgResultStore({ pool });
    const old = Buffer.from('name,lat,lon\nParis,48.85,2.35\n');
    await pool.query('INSERT INTO uploads (hash, size, data) VALUES ($1, $2, $3)', [sha(old), old.length, gzipSync(old)]);
    expect((await store.readUpload(sha(old)))!.equals(old)).toBe(true);
    const fresh = Buffer.from('x'.repeat(100));
    await store.keepUpload(sha(fresh), fresh);
    expect(gunzipSync((await pool.query('SELECT data FROM upload_chunks WHERE hash = $1', [sha(fresh)])).rows[0].data).equals(fresh)).toBe(true);
    await pool.query('DELETE FROM uploads WHERE hash = $1', [sha(fresh)]);
    expect((await pool.query('SELECT count(*)::int AS n FROM upload_chunks WHERE hash = $1', [sha(fresh)])).rows[0].n).toBe(0);
    await store.close();
  });
});
