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
 * - every answer timed (within, nearest, the users' layer questions) checked id by id against
 *   this file's own answer: a grid of the generated points and a haversine (PointGrid below),
 *   with no store, index or SQL in it;
 * - 32 users at once, each with their own key and kept-alive connection, asking and continuing their own questions over
 *   HTTP against the service on PostgreSQL run as a team runs it (`--workers`, one process per
 *   core, FIELDLENS_BENCH_WORKERS), on the database holding the layer: after a warm-up of 16
 *   rounds, from which each user goes on without waiting for the others, 20 rounds per user
 *   (FIELDLENS_BENCH_ROUNDS) of questions on the layer
 *   (concurrent_users_*; every answer's ids and count checked as above),
 *   then of the built-in catalog's (concurrent_catalog_*): p50/p99 of the requests and the CPU
 *   the service's processes and this client spent per request;
 * - with `-- --replicas N`: N streaming replicas of the cluster (pg_basebackup -R) made before
 *   the 32 users, whose layer questions are then asked again of a service told of them
 *   (`--replica`): replica_concurrent_users_* beside the figures without, in the same run, on
 *   the same machine, and replica_read_share, the share of the layer table's scans the
 *   replicas counted (pg_stat_user_tables of each server);
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
import type { LayerStore, NearFeature } from '../../electron/local-service/layers/store/layer-store';
import { openPostgisLayerStore } from '../../electron/local-service/layers/store/postgis-layer-store';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import type { LayerFeature } from '../../electron/local-service/layers/types';
import { newKey } from '../../electron/local-service/team/keyring';
import { layerScans, startPgCluster } from '../support/pg-cluster';
import { printFigures, type Figures } from './figures';
import { HttpConnection } from './http-connection';
import { CATALOG_FOLLOW_UP, CATALOG_QUESTIONS, checkCatalogAnswer } from './catalog-answers';

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
/** `-- --replicas N`: streaming replicas for a second run of the 32 users (none by default). */
const REPLICAS = (() => {
  const at = process.argv.indexOf('--replicas');
  const n = at < 0 ? 0 : Number(process.argv[at + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error('--replicas takes a whole number');
  return n;
})();
/** The generated points of the PostGIS layer, for the answers' check (built after the timed queries). */
let grid: PointGrid;
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

/**
 * The generated points in buckets of 0.05°, answered by a haversine on each candidate: the answer
 * every store must give, found without it. Spheres: PostGIS's (2a + b) / 3 of WGS 84 and turf's
 * mean radius differ by 3e-9 of a distance; a point that close to the radius may go either way.
 */
class PointGrid {
  static readonly CELL = 0.05;
  static readonly RADIUS_M = 6371008.8;
  private readonly cols = Math.ceil(20 / PointGrid.CELL);
  private readonly rows = Math.ceil(12 / PointGrid.CELL);
  private readonly start: Int32Array;
  private readonly ids: Int32Array;
  constructor(readonly n: number) {
    const cellOf = (i: number) => {
      const [lon, lat] = pointAt(i);
      return Math.min(this.rows - 1, Math.floor((lat - 40) / PointGrid.CELL)) * this.cols + Math.min(this.cols - 1, Math.floor((lon + 5) / PointGrid.CELL));
    };
    this.start = new Int32Array(this.cols * this.rows + 1);
    for (let i = 0; i < n; i++) this.start[cellOf(i) + 1]!++;
    for (let c = 0; c < this.cols * this.rows; c++) this.start[c + 1]! += this.start[c]!;
    const fill = this.start.slice(0, -1);
    this.ids = new Int32Array(n);
    for (let i = 0; i < n; i++) this.ids[fill[cellOf(i)]!++] = i;
  }
  static metres([lon1, lat1]: [number, number], [lon2, lat2]: [number, number]): number {
    const rad = Math.PI / 180;
    const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
    return 2 * PointGrid.RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
  }
  /** Ids and distances of the points within `metres` (of those `keep` accepts), nearest first. */
  within(p: [number, number], metres: number, keep: (i: number) => boolean = () => true): { id: number; d: number }[] {
    const dLat = (metres / PointGrid.RADIUS_M / (Math.PI / 180)) * 1.01;
    const dLon = dLat / Math.cos(((Math.abs(p[1]) + dLat) * Math.PI) / 180);
    const out: { id: number; d: number }[] = [];
    const r0 = Math.max(0, Math.floor((p[1] - dLat - 40) / PointGrid.CELL));
    const r1 = Math.min(this.rows - 1, Math.floor((p[1] + dLat - 40) / PointGrid.CELL));
    const c0 = Math.max(0, Math.floor((p[0] - dLon + 5) / PointGrid.CELL));
    const c1 = Math.min(this.cols - 1, Math.floor((p[0] + dLon + 5) / PointGrid.CELL));
    for (let r = r0; r <= r1; r++)
      for (let c = c0; c <= c1; c++)
        for (let k = this.start[r * this.cols + c]!; k < this.start[r * this.cols + c + 1]!; k++) {
          const id = this.ids[k]!;
          if (!keep(id)) continue;
          const d = PointGrid.metres(p, pointAt(id));
          if (d <= metres) out.push({ id, d });
        }
    return out.sort((a, b) => a.d - b.d || a.id - b.id);
  }
  /** The k nearest, widening the radius until k are found. */
  nearest(p: [number, number], k: number): { id: number; d: number }[] {
    for (let r = 500; ; r *= 2) {
      const got = this.within(p, r);
      if (got.length >= k || r > 2_000_000) return got.slice(0, k);
    }
  }
}

/** Margin within which two spheres' distances may order or cut differently. */
const EDGE_M = 1e-3;

/**
 * Throws unless `got` (ids nearest first) is `want`, allowing only swaps and cuts between points
 * whose distances are within EDGE_M of each other or of the radius.
 */
function sameIds(what: string, got: number[], want: { id: number; d: number }[], radius: number, all?: { id: number; d: number }[]): void {
  const ok = got.length === want.length && got.every((id, i) => id === want[i]!.id);
  if (ok) return;
  // Either side of a tie or of the radius: compare as sets, then allow only near-equal distances to differ.
  const dist = new Map((all ?? want).map((w) => [w.id, w.d]));
  const wantSet = new Set(want.map((w) => w.id));
  const missing = want.filter((w) => !got.includes(w.id));
  const extra = got.filter((id) => !wantSet.has(id));
  const edge = want.length ? want[want.length - 1]!.d : radius;
  const near = (d: number | undefined) => d !== undefined && (Math.abs(d - radius) < EDGE_M || Math.abs(d - edge) < EDGE_M);
  const orderOk = got.every((id, i) => i === 0 || (dist.get(id) ?? Infinity) + EDGE_M >= (dist.get(got[i - 1]!) ?? Infinity));
  if (Math.abs(got.length - want.length) <= missing.length + extra.length && missing.every((m) => near(m.d)) && extra.every((id) => near(dist.get(id))) && orderOk) return;
  throw new Error(`${what}: ids ${JSON.stringify(got.slice(0, 12))} (${got.length}), a plain haversine scan finds ${JSON.stringify(want.slice(0, 12).map((w) => w.id))} (${want.length})`);
}

const idOf = (sourceId: string) => Number(sourceId.slice('node/'.length));

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
    const withinAnswers: NearFeature[][] = [];
    const knnAnswers: NearFeature[][] = [];
    figures['within_p50_ms'] = round(pct(await timed(QUERIES, async (i) => withinAnswers.push(await store.within(pgLayer.id, probe(i), 500))), 0.5));
    figures['knn_p50_ms'] = round(pct(await timed(QUERIES, async (i) => knnAnswers.push(await store.nearest(pgLayer.id, probe(i), 10))), 0.5));
    figures['query_peak_rss_mb'] = Math.round(Math.max(rss.peak, process.memoryUsage().rss) / MB);
    await pool.end();
    say('checking every answer against a haversine over the generated points');
    grid = new PointGrid(POINTS);
    for (let i = 0; i < QUERIES; i++) {
      sameIds(`within 500 m #${i}`, withinAnswers[i]!.map((f) => idOf(f.sourceId)), grid.within(probe(i), 500), 500, grid.within(probe(i), 500 + EDGE_M));
      const wide = grid.nearest(probe(i), 11);
      sameIds(`nearest 10 #${i}`, knnAnswers[i]!.map((f) => idOf(f.sourceId)), wide.slice(0, 10), Infinity, wide);
    }
    figures['answers_checked'] = 2 * QUERIES;

    say(`importing ${EMBEDDED.toLocaleString('en')} points into the embedded store`);
    const sqlite = asAsyncLayerStore(openSqliteLayerStore({ dataDir: join(dir, 'embedded') }));
    const emb = await load(sqlite, EMBEDDED, { peak: 0 });
    figures['embedded_points'] = EMBEDDED;
    figures['embedded_import_features_per_s'] = Math.round(EMBEDDED / emb.seconds);
    const embAnswers: NearFeature[][] = [];
    const embProbe = (i: number) => pointAt((i * 7919 + 13) % EMBEDDED);
    figures['embedded_within_p50_ms'] = round(pct(await timed(QUERIES, async (i) => embAnswers.push(await sqlite.within(emb.id, embProbe(i), 500))), 0.5));
    await sqlite.close();
    const embGrid = EMBEDDED === POINTS ? grid : new PointGrid(EMBEDDED);
    for (let i = 0; i < QUERIES; i++) sameIds(`embedded within 500 m #${i}`, embAnswers[i]!.map((f) => idOf(f.sourceId)), embGrid.within(embProbe(i), 500), 500, embGrid.within(embProbe(i), 500 + EDGE_M));
    figures['answers_checked'] += QUERIES;

    // Made before both runs of the users, so that the run without them differs only in where it reads.
    const replicaUrls: string[] = [];
    const servers = [join(cluster.dir, 'data')];
    for (let i = 0; i < REPLICAS; i++) {
      say(`making streaming replica ${i + 1} of ${REPLICAS} (pg_basebackup -R)`);
      const r = cluster.startReplica();
      replicaUrls.push(r.url(url));
      servers.push(r.dataDir);
    }
    say(`${USERS} users at once against a service on PostgreSQL holding the ${POINTS.toLocaleString('en')}-point layer`);
    Object.assign(figures, await concurrentUsers(url, join(dir, 'service'), servers));
    if (REPLICAS) {
      say(`the same users' layer questions with ${REPLICAS} replica(s)`);
      const before = await Promise.all([url, ...replicaUrls].map(layerScans));
      const withReplicas = await concurrentUsers(url, join(dir, 'service-replicas'), servers, replicaUrls);
      const scans = (await Promise.all([url, ...replicaUrls].map(layerScans))).map((n, i) => n - before[i]!);
      const onReplicas = scans.slice(1).reduce((a, b) => a + b, 0);
      figures['replicas'] = REPLICAS;
      figures['replica_read_share'] = round(onReplicas / Math.max(1, onReplicas + scans[0]!), 3);
      figures['replica_concurrent_users_p50_ms'] = withReplicas['concurrent_users_p50_ms']!;
      figures['replica_concurrent_users_p99_ms'] = withReplicas['concurrent_users_p99_ms']!;
      figures['replica_concurrent_requests_per_s'] = withReplicas['concurrent_requests_per_s']!;
      figures['replica_concurrent_service_cpu_ms_per_request'] = withReplicas['concurrent_service_cpu_ms_per_request']!;
      figures['replica_concurrent_users_answers_checked'] = withReplicas['concurrent_users_answers_checked']!;
      figures['replica_concurrent_primary_cpu_ms_per_request'] = withReplicas['concurrent_primary_cpu_ms_per_request']!;
      figures['replica_concurrent_replicas_cpu_ms_per_request'] = withReplicas['concurrent_replicas_cpu_ms_per_request']!;
      figures['leaked_keys'] = Number(figures['leaked_keys']) + Number(withReplicas['leaked_keys']);
    }
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

/** A PostgreSQL server's processes: its postmaster (first line of postmaster.pid) and backends. */
const serverProcesses = (dataDir: string) => processTree(Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]));

/**
 * The 32 users; with `replicas`, the layer's questions only, against a service reading there.
 * `servers`: the data folders of the primary, then of each replica, whose CPU is counted.
 */
async function concurrentUsers(database: string, dataDir: string, servers: string[], replicas?: string[]): Promise<Figures> {
  const made = await Promise.all(Array.from({ length: USERS }, (_, i) => newKey(`user${i}`)));
  // The service as a team runs it, in processes of its own (the bench's clients stay out of its event loops).
  const users = join(dataDir, '..', 'users.txt');
  writeFileSync(users, made.map((m) => m.line).join('\n') + '\n');
  const cli = join(import.meta.dirname, '../../electron/local-service/cli.ts');
  // FIELDLENS_BENCH_CPU_PROF=DIR: a V8 CPU profile of each service process in DIR, to see where its time goes.
  const prof = process.env['FIELDLENS_BENCH_CPU_PROF'];
  const child = spawn(process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), '--import', 'tsx', cli, '--users-file', users, '--data-dir', dataDir, '--database', database, ...(replicas ?? []).flatMap((r) => ['--replica', r]), '--workers', String(WORKERS), '--no-sample', '--json']);
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
    const answer = JSON.parse(text) as { id: string; results: { numberMatched: number; features: { properties: { source_id?: string } }[] } };
    return { ms: performance.now() - t, id: answer.id, matched: answer.results.numberMatched, ids: answer.results.features.map((f) => f.properties.source_id ?? '') };
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
  const catalogQuestion = (u: number, r: number) => CATALOG_QUESTIONS[(u + r) % CATALOG_QUESTIONS.length]!;
  const catalogRound = (u: number, r: number) => ({
    first: { query: catalogQuestion(u, r).query, limit: 10 },
    next: { query: CATALOG_FOLLOW_UP, limit: 10 },
  });
  const run = async (turn: (u: number, r: number) => { first: object; next: object }) => {
    const ms: number[] = [];
    const matched = new Map<string, number>();
    const answers = new Map<string, { first: string[]; next: string[]; matched: number }>();
    // The service's processes, listed before the measured rounds (pgrep would stall this client).
    const service = processTree(child.pid!);
    // PostgreSQL's processes, whose backends come and go with the service's pools: the CPU each
    // had at the start, then all of it over the whole run (warm-up included: listing processes
    // when the measured rounds start would stall this client) per request of the whole run.
    const db0 = servers.map((d) => new Map(serverProcesses(d).map((pid) => [pid, cpuMs([pid])])));
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
          answers.set(`${u}/${r}`, { first: asked.ids, next: more.ids, matched: asked.matched });
        }
        t1 = Math.max(t1, performance.now());
      }),
    );
    const wall = (t1 - t0) / 1000;
    const clientCpu = process.cpuUsage(cpu0!.client);
    const requests = USERS * (WARMUP_ROUNDS + ROUNDS) * 2;
    const dbCpu = servers.map((d, i) => serverProcesses(d).reduce((sum, pid) => sum + cpuMs([pid]) - (db0[i]!.get(pid) ?? 0), 0) / requests);
    return {
      matched,
      answers,
      p50: round(pct(ms, 0.5)),
      p99: round(pct(ms, 0.99)),
      rps: Math.round(ms.length / wall),
      serviceCpu: round((cpuMs(service) - cpu0!.service) / ms.length),
      clientCpu: round((clientCpu.user + clientCpu.system) / 1000 / ms.length),
      primaryCpu: round(dbCpu[0]!),
      replicasCpu: round(dbCpu.slice(1).reduce((a, b) => a + b, 0)),
    };
  };
  const layer = await run(layerRound);
  const cat = replicas ? null : await run(catalogRound);
  // Every layer answer, its ids and its count, against the haversine over the generated points:
  // the cafés (or pharmacies) within 2 km of the site, nearest first, the first 10 listed.
  let checked = 0;
  for (const [key, a] of layer.answers) {
    const [u, r] = key.split('/').map(Number) as [number, number];
    const { latitude, longitude } = site(u, r)[0]!;
    const cafes = (u + r) % 2 === 1;
    const kind = (i: number) => (i % 3 !== 0) === cafes;
    const want = grid.within([longitude, latitude], 2000, kind);
    const wider = grid.within([longitude, latitude], 2000 + EDGE_M, kind);
    if (Math.abs(a.matched - want.length) > wider.filter((w) => Math.abs(w.d - 2000) < EDGE_M).length)
      throw new Error(`user ${u}, round ${r}: the service matched ${a.matched}, a haversine scan finds ${want.length}`);
    for (const ids of [a.first, a.next]) sameIds(`user ${u}, round ${r}`, ids.map(idOf), want.slice(0, 10), 2000, wider);
    checked++;
  }
  // Every catalog answer, its count and listed ids, against the published open data.
  for (const [key, a] of cat?.answers ?? []) {
    const [u, r] = key.split('/').map(Number) as [number, number];
    checkCatalogAnswer(`user ${u}, round ${r}`, catalogQuestion(u, r), a, 10);
    checked++;
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
    // PostgreSQL's processes: the primary, and the replicas together (streaming and replaying, or answering reads).
    concurrent_primary_cpu_ms_per_request: layer.primaryCpu,
    ...(servers.length > 1 && { concurrent_replicas_cpu_ms_per_request: layer.replicasCpu }),
    ...(cat && {
      concurrent_catalog_p50_ms: cat.p50,
      concurrent_catalog_p99_ms: cat.p99,
      concurrent_catalog_requests_per_s: cat.rps,
      concurrent_catalog_service_cpu_ms_per_request: cat.serviceCpu,
    }),
    leaked_keys: leaked,
  };
}

await main();
