/**
 * Team-service benchmark on a throwaway PostGIS cluster (scripts/pg-test-cluster.sh):
 * - import of a 10,000,000-point layer (FIELDLENS_BENCH_POINTS) streamed through the PostGIS
 *   layer store (binary COPY on two connections, key and geometry GiST index after the load),
 *   with the peak RSS of this process. import_features_per_s counts features written and
 *   indexed, end to end: from create() until commit() returns with the layer listed (features
 *   made here in batches, COPY, primary key, GiST index, VACUUM ANALYZE); copy_features_per_s the
 *   load alone (until the last batch was handed over);
 * - within-500 m and nearest-10 p50 over it (random points in the layer's extent);
 * - the same within question on the embedded SQLite store holding the largest layer it is given
 *   here (FIELDLENS_BENCH_EMBEDDED_POINTS, 2,000,000 by default), same run, same points;
 * - 32 users at once, each with their own key and kept-alive connection, asking and continuing their own questions over
 *   HTTP against the service on PostgreSQL run as a team runs it (`--workers`, one process per
 *   core, FIELDLENS_BENCH_WORKERS), on the database holding the layer: after a warm-up of 16
 *   rounds, from which each user goes on without waiting for the others, 20 rounds per user
 *   (FIELDLENS_BENCH_ROUNDS) of questions on the layer
 *   (concurrent_users_*; one answer per user counted again by PostGIS and required to agree),
 *   then of the built-in catalog's (concurrent_catalog_*): p50/p99 of the requests and the CPU
 *   the service's processes and this client spent per request;
 * - a leak sweep: no key in the database dump, the logs or the responses.
 * Last line: one JSON object (import_features_per_s, within_p50_ms, knn_p50_ms,
 * embedded_within_p50_ms, concurrent_users_p99_ms, ...).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { asAsyncLayerStore } from '../../electron/local-service/layers/store/async-layer-store';
import type { LayerStore } from '../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../electron/local-service/layers/store/postgis-layer-store';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import type { LayerFeature } from '../../electron/local-service/layers/types';
import { newKey } from '../../electron/local-service/team/keyring';
import { startPgCluster } from '../support/pg-cluster';
import { printFigures, type Figures } from './figures';
import { HttpConnection } from './http-connection';

const POINTS = Number(process.env['FIELDLENS_BENCH_POINTS'] ?? 10_000_000);
const EMBEDDED = Math.min(POINTS, Number(process.env['FIELDLENS_BENCH_EMBEDDED_POINTS'] ?? 2_000_000));
const QUERIES = 300;
const USERS = 32;
/** Service processes for the 32 users (`--workers`): one per core unless told. */
const WORKERS = Number(process.env['FIELDLENS_BENCH_WORKERS'] ?? availableParallelism());
/** Rounds per user (a question and its continuation each), after WARMUP_ROUNDS not counted. */
const ROUNDS = Number(process.env['FIELDLENS_BENCH_ROUNDS'] ?? 20);
/**
 * Warm-up rounds per user: 1,024 requests, until the workers' compiled code has settled. After 4
 * rounds (256 requests) the service still spent 3.3-3.9 ms of CPU a request in the measured
 * rounds against 2.5-3.0 ms after 12 or 24, and its first second ran at about half the
 * throughput that followed: a figure for a service just started, not one up a while.
 */
const WARMUP_ROUNDS = 16;
const BATCH = 10_000;
const MB = 1024 * 1024;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const say = (s: string) => process.stderr.write(s + '\n');

/** Points spread over Western Europe (a country-sized extract's extent), deterministic. */
function pointAt(i: number): [number, number] {
  const h = Math.imul(i + 1, 2654435761) >>> 0;
  const g = Math.imul(h ^ (h >>> 15), 2246822519) >>> 0;
  return [-5 + (h / 4294967296) * 20, 40 + (g / 4294967296) * 12];
}

async function load(store: LayerStore, n: number, rss: { peak: number }): Promise<{ id: string; seconds: number; loadSeconds: number }> {
  const t0 = performance.now();
  const w = await store.create({ name: 'points', sourceFile: 'generated', format: 'geojson', licence: null, sourceText: 'generated' });
  for (let at = 0; at < n; at += BATCH) {
    const batch: LayerFeature[] = [];
    for (let i = at; i < Math.min(n, at + BATCH); i++)
      batch.push({ sourceId: `node/${i}`, geometry: { type: 'Point', coordinates: pointAt(i) }, properties: { amenity: i % 3 ? 'cafe' : 'pharmacy', name: `P ${i}` } });
    await w.add(batch);
    rss.peak = Math.max(rss.peak, process.memoryUsage().rss);
    if (at % 1_000_000 === 0) say(`  ${at.toLocaleString('en')} / ${n.toLocaleString('en')}`);
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  const info = await w.commit([]);
  return { id: info.id, seconds: (performance.now() - t0) / 1000, loadSeconds };
}

async function timed(n: number, q: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await q(i);
    ms.push(performance.now() - t);
  }
  return ms;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-pg-'));
  const cluster = startPgCluster();
  const figures: Figures = {};
  try {
    const url = await cluster.createDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    const store = await openPostgisLayerStore({ pool });
    const rss = { peak: process.memoryUsage().rss };
    say(`importing ${POINTS.toLocaleString('en')} points into PostGIS`);
    const pgLayer = await load(store, POINTS, rss);
    figures['points'] = POINTS;
    figures['import_features_per_s'] = Math.round(POINTS / pgLayer.seconds);
    figures['copy_features_per_s'] = Math.round(POINTS / pgLayer.loadSeconds);
    figures['import_peak_rss_mb'] = Math.round(rss.peak / MB);
    const probe = (i: number) => pointAt((i * 7919 + 13) % POINTS);
    figures['within_p50_ms'] = round(pct(await timed(QUERIES, (i) => store.within(pgLayer.id, probe(i), 500)), 0.5));
    figures['knn_p50_ms'] = round(pct(await timed(QUERIES, (i) => store.nearest(pgLayer.id, probe(i), 10)), 0.5));
    figures['query_peak_rss_mb'] = Math.round(Math.max(rss.peak, process.memoryUsage().rss) / MB);
    await pool.end();

    say(`importing ${EMBEDDED.toLocaleString('en')} points into the embedded store`);
    const sqlite = asAsyncLayerStore(openSqliteLayerStore({ dataDir: join(dir, 'embedded') }));
    const emb = await load(sqlite, EMBEDDED, { peak: 0 });
    figures['embedded_points'] = EMBEDDED;
    figures['embedded_import_features_per_s'] = Math.round(EMBEDDED / emb.seconds);
    figures['embedded_within_p50_ms'] = round(pct(await timed(QUERIES, (i) => sqlite.within(emb.id, pointAt((i * 7919 + 13) % EMBEDDED), 500)), 0.5));
    await sqlite.close();

    say(`${USERS} users at once against a service on PostgreSQL holding the ${POINTS.toLocaleString('en')}-point layer`);
    Object.assign(figures, await concurrentUsers(url, pgLayer.id, join(dir, 'service')));
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  printFigures(figures);
}

/** A process and its children (the service's workers). */
function processTree(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).map(Number);
  return [pid, ...children];
}

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU time (user + system) the processes have used so far, from /proc. */
function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name: utime and stime are the 12th and 13th.
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(f[11]) + Number(f[12])) * TICK_MS;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

async function concurrentUsers(database: string, layerId: string, dataDir: string): Promise<Figures> {
  const made = await Promise.all(Array.from({ length: USERS }, (_, i) => newKey(`user${i}`)));
  // The service as a team runs it, in processes of its own (the bench's clients stay out of its event loops).
  const users = join(dataDir, '..', 'users.txt');
  writeFileSync(users, made.map((m) => m.line).join('\n') + '\n');
  const cli = join(import.meta.dirname, '../../electron/local-service/cli.ts');
  // FIELDLENS_BENCH_CPU_PROF=DIR: a V8 CPU profile of each service process in DIR, to see where its time goes.
  const prof = process.env['FIELDLENS_BENCH_CPU_PROF'];
  const child = spawn(process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), '--import', 'tsx', cli, '--users-file', users, '--data-dir', dataDir, '--database', database, '--workers', String(WORKERS), '--no-sample', '--json']);
  let log = '';
  child.stderr.on('data', (d) => (log += String(d)));
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  const { baseUrl } = JSON.parse(String(first)) as { baseUrl: string };
  const bodies: string[] = [];
  // One kept-alive connection per user, with a lean client (http-connection.ts): the client's
  // CPU comes from the same two cores as the service's.
  const connections = made.map(() => new HttpConnection(baseUrl));
  const post = (u: number, key: string, body: string) =>
    connections[u]!.post('/v1/compute', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body);
  const ask = async (u: number, key: string, body: object) => {
    const t = performance.now();
    const { status, text } = await post(u, key, JSON.stringify(body));
    if (status !== 200) throw new Error(`compute ${status}: ${text}\n${log.split('\n').filter((l) => !l.includes('"request"')).slice(-20).join('\n')}`);
    bodies.push(text);
    const answer = JSON.parse(text) as { id: string; results: { numberMatched: number } };
    return { ms: performance.now() - t, id: answer.id, matched: answer.results.numberMatched };
  };
  // What a team asks of its shared layer: the cafés or pharmacies around a site of their own
  // (a request coordinate), then a continuation, as a pgbench of ST_DWithin at 32 connections
  // measures PostGIS alone; and, apart, the built-in catalog's questions.
  const site = (u: number, r: number) => {
    const [lon, lat] = pointAt((u * 7919 + r * 104_729 + 17) % POINTS);
    return [{ name: 'site', latitude: lat, longitude: lon }];
  };
  const layerRound = (u: number, r: number) => ({
    first: { query: `${(u + r) % 2 ? 'cafes' : 'pharmacies'} within 2 km of site`, coordinates: site(u, r), limit: 10 },
    next: { query: 'sort by distance to site', coordinates: site(u, r), limit: 10 },
  });
  const questions = ['airports in France', 'cities in Germany over 100000 people', 'airports within 100 km of Madrid', 'cities near Lyon'];
  const catalogRound = (u: number, r: number) => ({
    first: { query: questions[(u + r) % questions.length]!, limit: 10 },
    next: { query: 'sort by distance to Paris', limit: 10 },
  });
  const run = async (turn: (u: number, r: number) => { first: object; next: object }) => {
    const ms: number[] = [];
    const matched = new Map<string, number>();
    // The service's processes, listed before the measured rounds (pgrep would stall this client).
    const service = processTree(child.pid!);
    let cpu0: { service: number; client: NodeJS.CpuUsage } | null = null;
    let t0 = 0;
    let t1 = 0;
    // Each user goes on from the warm-up into the measured rounds without waiting for the others,
    // as users do: the warm-up's first round starts all together, the measured ones do not.
    await Promise.all(
      made.map(async (m, u) => {
        for (let w = 0; w < WARMUP_ROUNDS + ROUNDS; w++) {
          const r = w - WARMUP_ROUNDS;
          // Warm-up rounds, not counted (their own questions): each key's scrypt check (once per
          // machine), the caches and the compiler's, as on a service that has been up a while.
          const { first, next } = turn(u, r < 0 ? ROUNDS - r : r);
          if (r === 0 && !cpu0) {
            cpu0 = { service: cpuMs(service), client: process.cpuUsage() };
            t0 = performance.now();
          }
          const asked = await ask(u, m.key, first);
          const more = await ask(u, m.key, { ...next, search_id: asked.id });
          if (more.matched !== asked.matched) throw new Error(`a continuation changed what matched: ${asked.matched}, then ${more.matched}`);
          if (r < 0) continue;
          ms.push(asked.ms, more.ms);
          matched.set(`${u}/${r}`, asked.matched);
        }
        t1 = Math.max(t1, performance.now());
      }),
    );
    const wall = (t1 - t0) / 1000;
    const clientCpu = process.cpuUsage(cpu0!.client);
    return {
      matched,
      p50: round(pct(ms, 0.5)),
      p99: round(pct(ms, 0.99)),
      rps: Math.round(ms.length / wall),
      serviceCpu: round((cpuMs(service) - cpu0!.service) / ms.length),
      clientCpu: round((clientCpu.user + clientCpu.system) / 1000 / ms.length),
    };
  };
  const layer = await run(layerRound);
  const cat = await run(catalogRound);
  // The layer answers, counted again by PostGIS itself (on the sphere, as the service measures):
  // one question per user.
  const db = new pg.Client({ connectionString: database });
  await db.connect();
  let checked = 0;
  try {
    const table = `layer_features_${(await db.query<{ id: number }>('SELECT id FROM layers WHERE uid = $1', [layerId])).rows[0]!.id}`;
    for (let u = 0; u < USERS; u++) {
      const r = u % ROUNDS;
      const { latitude, longitude } = site(u, r)[0]!;
      const want = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE tags->>'amenity' = $1 AND ST_DWithin(geom::geography, ST_MakePoint($2, $3)::geography, 2000, false)`,
        [(u + r) % 2 ? 'cafe' : 'pharmacy', longitude, latitude],
      );
      if (want.rows[0]!.n !== layer.matched.get(`${u}/${r}`)) throw new Error(`user ${u}, round ${r}: the service matched ${layer.matched.get(`${u}/${r}`)}, PostGIS counts ${want.rows[0]!.n}`);
      checked++;
    }
  } finally {
    await db.end();
  }
  for (const c of connections) c.close();
  child.kill('SIGTERM');
  await once(child, 'exit');
  // Everything but the generated layer's rows (gigabytes of points no key could be in).
  const dump = execFileSync('pg_dump', ['--data-only', '--exclude-table-data=layer_features_*', database], { encoding: 'utf8', maxBuffer: 1024 * MB });
  const hay = [dump, log, bodies.join('\n')];
  const leaked = made.filter((m) => hay.some((h) => h.includes(m.key) || h.includes(m.key.split('_').slice(2).join('_')))).length;
  return {
    concurrent_users: USERS,
    concurrent_users_workers: WORKERS,
    concurrent_users_answers_checked: checked,
    concurrent_users_mean_matched: round([...layer.matched.values()].reduce((a, b) => a + b, 0) / layer.matched.size, 1),
    concurrent_users_p50_ms: layer.p50,
    concurrent_users_p99_ms: layer.p99,
    concurrent_requests_per_s: layer.rps,
    concurrent_service_cpu_ms_per_request: layer.serviceCpu,
    concurrent_client_cpu_ms_per_request: layer.clientCpu,
    concurrent_catalog_p50_ms: cat.p50,
    concurrent_catalog_p99_ms: cat.p99,
    concurrent_catalog_requests_per_s: cat.rps,
    concurrent_catalog_service_cpu_ms_per_request: cat.serviceCpu,
    leaked_keys: leaked,
  };
}

await main();
