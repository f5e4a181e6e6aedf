import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createImageryPlugin, type ImageryPlugin } from '../../../electron/local-service/imagery';
import { ImageryCatalog } from '../../../electron/local-service/imagery/catalog';
import { RegionTable } from '../../../electron/local-service/imagery/geocoder';
import { openPgImageryStorage } from '../../../electron/local-service/imagery/pg-store';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { DATABASE_FILE } from '../../../electron/local-service/store';
import { z } from 'zod';
import { ImageryRecord, ImageryResponseSuccess } from '../../../shared/service/imagery';
import { StreamResponseSuccess } from '../../../shared/service/stream';
import { KEYS, catalog } from '../local-service/harness';
import { KNOWN, writeKnownFolder } from './fixtures';
import { BACKEND, databaseFor } from './harness';

/** One process of a team service: the whole service with its own data folder, on the shared database. */
interface Instance {
  service: LocalService;
  plugin: ImageryPlugin;
  dataDir: string;
  logger: ReturnType<typeof createMemoryLogger>;
  baseUrl: string;
  searchBaseUrl: string;
}

const TEAM_DATABASE = 'imagery-team';

/** The bundled service's search answer with the fields these tests read. */
const SearchAnswer = ImageryResponseSuccess.extend({ total: z.number(), data: z.array(ImageryRecord.extend({ thumbnail: z.string() })) });

async function startInstance(photoDir: string): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fl-imagery-team-'));
  const logger = createMemoryLogger();
  const plugin = createImageryPlugin({ photoDirs: [photoDir], watch: false });
  const service = createLocalService({
    dataDir,
    keys: KEYS,
    logger,
    clock: () => new Date(),
    catalog: catalog(),
    database: await databaseFor(TEAM_DATABASE),
    plugins: [plugin],
  });
  const urls = await service.start();
  await plugin.catalog()!.ready();
  return { service, plugin, dataDir, logger, ...urls };
}

async function search(i: Instance, query: string) {
  const res = await fetch(`${i.searchBaseUrl}/search`, {
    method: 'POST',
    headers: { 'x-api-key': KEYS.search, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 50 }),
  });
  expect(res.status).toBe(200);
  return SearchAnswer.parse(await res.json());
}

async function stream(i: Instance, query: string) {
  const res = await fetch(`${i.baseUrl}/v1/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  expect(res.status).toBe(200);
  return StreamResponseSuccess.parse(await res.json());
}

/** The same path and query on another process. */
const on = (url: string, other: string) => {
  const u = new URL(url);
  return `${other}${u.pathname}${u.search}`;
};

describe.skipIf(BACKEND !== 'postgis')('the imagery catalog of several service processes on one database', () => {
  let dir: string;
  let a: Instance;
  let b: Instance;
  let admin: pg.Client;
  beforeAll(async () => {
    dir = writeKnownFolder();
    a = await startInstance(dir);
    b = await startInstance(dir);
    admin = new pg.Client({ connectionString: await databaseFor(TEAM_DATABASE) });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    for (const i of [a, b]) {
      await i?.service.close();
      if (i) rmSync(i.dataDir, { recursive: true, force: true });
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a media URL handed out by one process from the other (one signing secret)', async () => {
    const rec = (await search(a, 'tram')).data.find((r) => r.address.startsWith('Lisbon'))!;
    expect(rec).toBeDefined();
    const image = await fetch(on(rec.image, b.searchBaseUrl));
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(readFileSync(join(dir, 'lisbon-tram.jpg')))).toBe(true);
    const thumb = await fetch(on(rec.thumbnail, b.searchBaseUrl));
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    // B checks the signature: the same URL with another one is a 404 there too.
    const forged = new URL(on(rec.image, b.searchBaseUrl));
    forged.searchParams.set('sig', 'A'.repeat(32));
    expect((await fetch(forged)).status).toBe(404);
  });

  it('answers on one process from a scan another process has just finished', async () => {
    const before = (await b.plugin.catalog()!.status()).lastScan;
    // B started after A had read the folder: its first scan found every file known, with the same size and mtime.
    expect(before).toMatchObject({ found: KNOWN.length + 1, read: 0, photos: KNOWN.length });
    expect((await search(b, 'ferry')).total).toBe(0);
    writeGeotaggedJpeg(join(dir, 'harbour.jpg'), {
      width: 16, height: 16, latitude: 60.1699, longitude: 24.9384, keywords: ['ferry'], takenAt: '2023:06:01 08:00:00', make: 'TestCam',
    });
    expect(await a.plugin.catalog()!.scan()).toMatchObject({ read: 1, photos: KNOWN.length + 1 });
    const found = await search(b, 'ferry');
    expect(found.data.map((r) => r.geometry.coordinates.map((c) => Math.round(c * 1e4) / 1e4))).toEqual([[24.9384, 60.1699]]);
    const streamed = await stream(b, 'ferry');
    expect(streamed.data.geojson.features).toHaveLength(1);
    // B read nothing itself: its last scan is the one from before the photo was written.
    expect((await b.plugin.catalog()!.status()).lastScan).toBe(before);
    // Its media URLs for the new photo are good on A.
    expect((await fetch(on(found.data[0]!.image, a.searchBaseUrl))).status).toBe(200);
  });

  it('scans the folders one process at a time', async () => {
    writeGeotaggedJpeg(join(dir, 'pier.jpg'), { width: 16, height: 16, latitude: 59.9, longitude: 10.75, keywords: ['pier'], make: 'TestCam' });
    // Both start at once: the second waits for the first and finds the photo already read.
    const [ra, rb] = await Promise.all([a.plugin.catalog()!.scan(), b.plugin.catalog()!.scan()]);
    expect(ra.read + rb.read).toBe(1);
    expect(Number((await admin.query("SELECT count(*) FROM imagery_photo WHERE path LIKE '%pier.jpg'")).rows[0].count)).toBe(1);

    // A scan started while another process holds the scan lock waits for it.
    writeGeotaggedJpeg(join(dir, 'quay.jpg'), { width: 16, height: 16, latitude: 59.91, longitude: 10.74, keywords: ['quay'], make: 'TestCam' });
    await admin.query("SELECT pg_advisory_lock(hashtext('fieldlens imagery scan'))");
    let finished = false;
    const waiting = b.plugin.catalog()!.scan().then((r) => ((finished = true), r));
    await new Promise((ok) => setTimeout(ok, 600));
    expect(finished).toBe(false);
    expect(b.logger.lines.some((l) => l.includes('another process is scanning'))).toBe(true);
    await admin.query("SELECT pg_advisory_unlock(hashtext('fieldlens imagery scan'))");
    expect(await waiting).toMatchObject({ read: 1 });
    expect((await search(a, 'quay')).total).toBe(1);
  });

  it('stops waiting for another process\'s scan when it closes', async () => {
    const pool = new pg.Pool({ connectionString: await databaseFor(TEAM_DATABASE) });
    const store = await openPgImageryStorage({ pool });
    const other = new ImageryCatalog({ dirs: [dir], store, geocode: () => null, regions: new RegionTable(), logger: createMemoryLogger(), watch: false });
    await admin.query("SELECT pg_advisory_lock(hashtext('fieldlens imagery scan'))");
    try {
      const scan = other.scan();
      scan.catch(() => undefined);
      await new Promise((ok) => setTimeout(ok, 300));
      const t0 = performance.now();
      await other.close();
      expect(performance.now() - t0).toBeLessThan(1000);
      await expect(scan).rejects.toThrow(/closed while another process was scanning/);
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtext('fieldlens imagery scan'))");
      await store.close();
      await pool.end();
    }
  });

  it('keeps nothing of the catalog in the data folders\' SQLite', async () => {
    const photos = Number((await admin.query('SELECT count(*) FROM imagery_photo')).rows[0].count);
    expect(photos).toBe(KNOWN.length + 3);
    for (const i of [a, b]) {
      const db = new Database(join(i.dataDir, DATABASE_FILE), { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%imagery%'").pluck().all();
        expect(tables).toEqual([]);
      } finally {
        db.close();
      }
    }
  });
});
