import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog, type Catalog } from '../../../electron/local-service/catalog/catalog';
import { openPostgisLayerStore } from '../../../electron/local-service/layers/store/postgis-layer-store';
import { parseLsn, type DatabaseHealth } from '../../../electron/local-service/pg/replicas';
import { createLocalService, type LocalService, type LocalServiceOptions } from '../../../electron/local-service/server';
import { layerScans, startPgCluster, type PgCluster, type PgReplica } from '../../support/pg-cluster';

/**
 * The team service on a real primary and a real streaming replica (pg_basebackup -R, on
 * loopback): where reads land, reading one's own writes while replay lags or is paused, and a
 * replica stopping or falling behind.
 */

const KEYS = { bearer: 'replica-bearer-0001', search: 'replica-search-0001' };
const EDGE = [{ name: 'Edge', latitude: 0, longitude: 4.5 }];
/** Cafés of the test layer: on a line north of Edge, at 50 m and then every 100 m. */
const CAFES = 40;
const CAFES_WITHIN_2KM = 20;
/** --replica-max-lag of the services here: wide enough that a loaded machine's replay stays within it. */
const LAG_BOUND_MS = 2000;

let cluster: PgCluster;
let replica: PgReplica;
let primaryUrl: string;
let replicaUrl: string;
let catalog: Catalog;
const dirs: string[] = [];
const running: LocalService[] = [];

interface Service {
  service: LocalService;
  baseUrl: string;
}

async function start(replicas: Partial<NonNullable<LocalServiceOptions['replicas']>> = {}, database = primaryUrl): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-replica-'));
  dirs.push(dataDir);
  const service = createLocalService({
    dataDir,
    keys: KEYS,
    logger: createMemoryLogger(),
    clock: () => new Date(),
    catalog,
    database,
    replicas: { urls: [replicaUrl], probeMs: 50, maxLagMs: LAG_BOUND_MS, waitMs: 50, ...replicas },
  });
  running.push(service);
  const { baseUrl } = await service.start();
  return { service, baseUrl };
}

async function stop(s: Service) {
  await s.service.close();
  running.splice(running.indexOf(s.service), 1);
}

async function ask(s: Service, body: Record<string, unknown> | FormData) {
  const form = body instanceof FormData;
  const res = await fetch(`${s.baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, ...(form ? {} : { 'content-type': 'application/json' }) },
    body: form ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`compute ${res.status}: ${text.slice(0, 400)}`);
  return JSON.parse(text) as { id: string; results: { numberMatched: number; features: { properties: { name?: string } }[] } };
}

async function health(s: Service) {
  const res = await fetch(`${s.baseUrl}/health`);
  return { status: res.status, body: (await res.json()) as { status: string; databases: DatabaseHealth[] } };
}
const replicaOf = async (s: Service) => (await health(s)).body.databases.find((d) => d.role === 'replica')!;

async function until(what: string, check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/**
 * Cafés within 1.95 to 2.0499 km of Edge: always the first 20 (at 50, 150, … 1,950 m; the next
 * at 2,050 m), a radius of its own each time so that no answer comes from the service's memory
 * of distance questions.
 */
let asked = 0;
const cafes = (s: Service) => ask(s, { query: `cafes within ${(1.95 + (asked++ % 1000) / 10_000).toFixed(4)} km of Edge`, coordinates: EDGE, limit: 100 });

beforeAll(async () => {
  catalog = loadCatalog(defaultCatalogDir());
  cluster = startPgCluster();
  primaryUrl = await cluster.createDatabase();
  replica = cluster.startReplica();
  replicaUrl = replica.url(primaryUrl);
  // The layer, written on the primary through the PostGIS layer store.
  const pool = new pg.Pool({ connectionString: primaryUrl, max: 2 });
  try {
    const store = await openPostgisLayerStore({ pool });
    const w = await store.create({ name: 'town', sourceFile: 'town.geojson', format: 'geojson', licence: null, sourceText: 'generated' });
    // 100 m steps north on the meridian: 0.0008993° of latitude is 100 m on a 6,371 km sphere, so
    // café k sits at (k + 0.5) × 100 m (within a centimetre), whichever sphere measures it.
    const step = (100 / 6_371_008.8) * (180 / Math.PI);
    await w.add(
      Array.from({ length: CAFES }, (_, k) => ({
        sourceId: `node/${k + 1}`,
        properties: { name: `Cafe ${k + 1}`, amenity: 'cafe' },
        geometry: { type: 'Point' as const, coordinates: [4.5, (k + 0.5) * step] },
      })),
    );
    await w.commit([]);
  } finally {
    await pool.end();
  }
}, 120_000);

afterAll(async () => {
  for (const s of [...running]) await s.close().catch(() => {});
  cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a team service with a streaming replica', () => {
  it('lists each database, its role and lag on /health, and sends layer questions to the replica', async () => {
    const primaryBefore = await layerScans(primaryUrl);
    const replicaBefore = await layerScans(replicaUrl);
    const s = await start();
    await until('the replica in rotation', async () => (await replicaOf(s)).in_rotation);
    const h = await health(s);
    expect(h.status).toBe(200);
    expect(h.body.databases.map((d) => [d.role, d.state])).toEqual([
      ['primary', 'ok'],
      ['replica', 'ok'],
    ]);
    expect(h.body.databases[1]!.database).toContain(`:${replica.port}/`);
    expect(h.body.databases[1]!.lag_ms).toBeLessThanOrEqual(LAG_BOUND_MS);
    const QUESTIONS = 40;
    for (let i = 0; i < QUESTIONS; i++) {
      const a = await cafes(s);
      expect(a.results.numberMatched).toBe(CAFES_WITHIN_2KM);
    }
    await stop(s);
    const onReplica = (await layerScans(replicaUrl)) - replicaBefore;
    const onPrimary = (await layerScans(primaryUrl)) - primaryBefore;
    // Every question reads the layer's table at least once; all but a first wait go to the replica.
    expect(onReplica).toBeGreaterThanOrEqual(QUESTIONS);
    expect(onReplica / (onReplica + onPrimary)).toBeGreaterThan(0.9);
  }, 60_000);

  it('finds the saved set in a continuation right after the save, 1,000 times, replay paused for part of them', async () => {
    // A saves every set. It continues the sets of uploaded sites itself (a set holding a file is
    // read from the database, with the position of its write); B continues A's layer answers,
    // of whose writes it knows nothing.
    const a = await start();
    const b = await start();
    await until('the replica in rotation', async () => (await replicaOf(a)).in_rotation && (await replicaOf(b)).in_rotation);
    const TRIES = 1000;
    const LANES = 4;
    let paused = false;
    let servedWhilePaused = 0;
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < TRIES; i = next++) {
        if (i === 300 && !paused) {
          paused = true;
          await replica.pauseReplay();
        }
        if (i === 700 && paused) {
          paused = false;
          await replica.resumeReplay();
        }
        if (i % 2) {
          // A layer question (its features read on the replica when it can), continued on B.
          const first = await cafes(a);
          const more = await ask(b, { query: 'sort by distance to Edge', coordinates: EDGE, search_id: first.id, limit: 100 });
          expect(more.results.numberMatched).toBe(CAFES_WITHIN_2KM);
          expect(more.results.features.map((f) => f.properties.name)).toEqual(Array.from({ length: CAFES_WITHIN_2KM }, (_, k) => `Cafe ${k + 1}`));
        } else {
          // Uploaded sites continued on A, which reads the set and its file with the position of their writes.
          const names = [`Site ${i} a`, `Site ${i} b`, `Site ${i} c`];
          const csv = `name,lat,lon\n${names.map((n, k) => `${n},${0.001 * (k + 1)},4.5`).join('\n')}\n`;
          const form = new FormData();
          form.append('query', 'which of my sites are within 50 km of Edge');
          form.append('coordinates', JSON.stringify(EDGE));
          form.append('files', new Blob([csv]), `sites-${i}.csv`);
          const first = await ask(a, form);
          expect(first.results.numberMatched).toBe(3);
          const more = await ask(a, { query: 'sort by distance to Edge', coordinates: EDGE, search_id: first.id });
          expect(more.results.numberMatched).toBe(3);
          expect(more.results.features.map((f) => f.properties.name)).toEqual(names);
        }
        if (paused) servedWhilePaused++;
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    expect(servedWhilePaused).toBeGreaterThan(200);
    await stop(a);
    await stop(b);
  }, 300_000);

  it('leaves no failed request when the replica stops, and takes it back once it answers', async () => {
    const s = await start();
    await until('the replica in rotation', async () => (await replicaOf(s)).in_rotation);
    let going = true;
    let answered = 0;
    const lane = async () => {
      while (going) {
        const a = await cafes(s);
        expect(a.results.numberMatched).toBe(CAFES_WITHIN_2KM);
        answered++;
      }
    };
    const lanes = Array.from({ length: 4 }, lane);
    await until('questions under way', async () => answered >= 20);
    const before = answered;
    replica.stop();
    await until('questions after the stop', async () => answered >= before + 40);
    going = false;
    await Promise.all(lanes);
    const down = await replicaOf(s);
    expect(down.state).toBe('down');
    expect(down.in_rotation).toBe(false);
    // The primary alone is still a healthy service.
    expect((await health(s)).status).toBe(200);
    replica.start();
    await until('the replica back in rotation', async () => (await replicaOf(s)).in_rotation);
    const readsBefore = (await replicaOf(s)).reads;
    for (let i = 0; i < 10; i++) expect((await cafes(s)).results.numberMatched).toBe(CAFES_WITHIN_2KM);
    expect((await replicaOf(s)).reads).toBeGreaterThan(readsBefore);
    await stop(s);
  }, 90_000);

  it('skips a replica lagging past --replica-max-lag', async () => {
    const replicaBefore = await layerScans(replicaUrl);
    const primaryBefore = await layerScans(primaryUrl);
    const s = await start();
    await until('the replica in rotation', async () => (await replicaOf(s)).in_rotation);
    await replica.pauseReplay();
    try {
      // Writes move the primary on (rows of a table no question reads); the paused replica falls behind them.
      const writer = new pg.Client({ connectionString: primaryUrl });
      await writer.connect();
      try {
        await writer.query('CREATE TABLE IF NOT EXISTS lag_filler (n INTEGER)');
        await until('the replica out of rotation for its lag', async () => {
          await writer.query('INSERT INTO lag_filler VALUES (1)');
          const r = await replicaOf(s);
          return r.state === 'lagging' && !r.in_rotation;
        });
      } finally {
        await writer.end();
      }
      expect((await replicaOf(s)).lag_ms).toBeGreaterThan(LAG_BOUND_MS);
      const QUESTIONS = 20;
      for (let i = 0; i < QUESTIONS; i++) expect((await cafes(s)).results.numberMatched).toBe(CAFES_WITHIN_2KM);
      await stop(s);
      expect(await layerScans(replicaUrl)).toBe(replicaBefore);
      expect((await layerScans(primaryUrl)) - primaryBefore).toBeGreaterThanOrEqual(QUESTIONS);
    } finally {
      await replica.resumeReplay();
    }
  }, 60_000);
});

describe('the primary failing', () => {
  it('is an error /health shows, with the replica still listed', async () => {
    const url = await cluster.createDatabase();
    const s = await start({ urls: [replica.url(url)] }, url);
    expect((await health(s)).status).toBe(200);
    // The database goes away on the primary (and, replayed, on the replica).
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${cluster.port}/postgres` });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    // The replica drops the database when it replays the drop: a probe may still find it just before.
    await until('the primary reported failing and the replica out of rotation', async () => {
      const h = await health(s);
      return h.status === 503 && h.body.databases.every((d) => !d.in_rotation);
    });
    const h = await health(s);
    expect(h.body.status).toBe('primary database unavailable');
    expect(h.body.databases.map((d) => [d.role, d.in_rotation])).toEqual([
      ['primary', false],
      ['replica', false],
    ]);
    expect(h.body.databases[0]!.error).toMatch(/does not exist|terminat/);
    await stop(s);
  }, 60_000);
});

describe('WAL positions', () => {
  it('reads pg_lsn text as one number: the high word, then the low one', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16n * 2n ** 32n + 0xb374d848n);
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn(null)).toBeNull();
    // Ordered as positions, not as text ("9/…" is before "10/…").
    expect(parseLsn('9/FFFFFFFF')! < parseLsn('10/0')!).toBe(true);
  });
});
