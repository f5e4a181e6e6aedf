import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgResultStore } from '../../../electron/local-service/pg/pg-result-store';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';
import { UploadSet } from '../../../electron/local-service/upload/set';

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

describe('saved result sets on PostgreSQL', () => {
  const saved = (n: number) => ({
    id: `6a3c1d2e-0000-4000-8000-${String(n).padStart(12, '0')}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    userId: `user${n % 3}`,
    query: `airports in Peru ${n}`,
    catalogVersion: 'v1',
    set: { subject: 'airport' as const, items: [{ k: 'airport' as const, i: n, d: n * 1.5 }, { k: 'airport' as const, i: n + 1 }], uploads: new UploadSet() },
  });

  it('writes the saves of one turn in one statement, files linked in order, and reads each back', async () => {
    const store = await openPgResultStore({ pool });
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    // Counts what reaches the database from here on (the store calls pool.query for its writes).
    pool.query = ((text: string, ...rest: unknown[]) => {
      statements.push(text);
      return (query as (...a: unknown[]) => unknown)(text, ...rest);
    }) as typeof pool.query;
    try {
      const files = (n: number) => Array.from({ length: n % 4 }, (_, i) => ({ hash: sha(Buffer.from(`file ${n}-${i}`)), name: `sites-${n}-${i}.csv` }));
      for (let n = 0; n < 40; n++) for (const f of files(n)) await store.keepUpload(f.hash, Buffer.from(f.name));
      statements.length = 0;
      for (let n = 0; n < 40; n++) store.save({ ...saved(n), files: files(n) });
      await store.settled();
      expect(statements.filter((s) => /INSERT INTO searches/.test(s))).toHaveLength(1);
      expect((await pool.query('SELECT count(*)::int AS n FROM search_uploads')).rows[0].n).toBe([...Array(40).keys()].reduce((a, n) => a + (n % 4), 0));
      // A second store has nothing in memory: what it reads comes from the tables.
      const other = await openPgResultStore({ pool });
      for (const n of [0, 1, 3, 22, 39]) {
        const got = await other.get(saved(n).id.toUpperCase());
        expect(got?.query).toBe(`airports in Peru ${n}`);
        expect(got?.userId).toBe(`user${n % 3}`);
        expect(got?.set.items).toEqual(saved(n).set.items);
        expect(got?.files ?? []).toEqual(files(n));
      }
      expect(await other.get('6a3c1d2e-0000-4000-8000-999999999999')).toBeNull();
      await other.close();
    } finally {
      pool.query = query;
      await store.close();
    }
  });

  it('saves made while a write is under way go out together in the next statement, and a small set written here is read back without a query', async () => {
    const store = await openPgResultStore({ pool });
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    let first = true;
    // Holds the first INSERT until released: the saves of the turns meanwhile must wait behind it as one.
    pool.query = (async (text: string, ...rest: unknown[]) => {
      statements.push(text);
      if (first && /INSERT INTO searches/.test(text)) {
        first = false;
        await held;
      }
      return (query as (...a: unknown[]) => unknown)(text, ...rest);
    }) as typeof pool.query;
    const turn = () => new Promise((ok) => setImmediate(ok));
    try {
      store.save(saved(100));
      const firstSettled = store.settled();
      await turn();
      await turn();
      for (let n = 101; n < 110; n++) {
        store.save(saved(n));
        await turn();
      }
      const allSettled = store.settled();
      release();
      await firstSettled;
      await allSettled;
      const inserts = statements.filter((t) => /INSERT INTO searches/.test(t));
      // One row in the held statement, the nine saves of nine later turns in one more.
      expect(inserts).toHaveLength(2);
      expect(inserts.map((t) => (t.match(/\(\$\d+/g) ?? []).length)).toEqual([1, 9]);
      expect((await pool.query("SELECT count(*)::int AS n FROM searches WHERE query LIKE 'airports in Peru 1__'")).rows[0].n).toBe(10);
      // Written by this store: read from memory, no statement.
      statements.length = 0;
      const got = await store.get(saved(105).id.toUpperCase());
      expect(got?.set.items).toEqual(saved(105).set.items);
      expect(got?.userId).toBe('user0');
      expect(statements).toEqual([]);
      // Unknown here: the database is asked.
      expect(await store.get(saved(3).id)).not.toBeNull();
      expect(statements).toHaveLength(1);
    } finally {
      pool.query = query;
      await store.close();
    }
  });
});
