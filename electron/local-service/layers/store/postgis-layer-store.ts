import { randomUUID } from 'node:crypto';
import type { Position } from 'geojson';
import type pg from 'pg';
import { inTransaction } from '../../pg/database';
import { applyPgMigrations } from '../../pg/migrations';
import type { DatabaseRouter, Lsn, ReadLease } from '../../pg/replicas';
import { decodeWkb } from '../../../ground/wkb';
import { LayerNotFoundError, type LayerInfo, type LayerStore, type LayerSummary, type NearFeature, type QueryOptions, type StoredFeature } from './layer-store';
import { FEATURE_COLUMNS, featureTable, createPgLayerWriter, loadTable } from './postgis-layer-writer';
import { nearBoxes } from './postgis-near';
import { PG_LAYER_MIGRATIONS } from './postgis-migrations';
import { matchSql, Params } from './postgis-sql';
import { createSummaryCollector } from './summary';

/**
 * Layers in PostgreSQL + PostGIS, for a team's service: the same interface and answers as the
 * embedded store, with the database doing the spatial work. Per layer one table
 * `layer_features_<n>` (geometry(Geometry, 4326), tags as JSONB), its rows in geometry order,
 * with a GiST index on the geometry built after the load: boxes, ST_Intersects, ST_Covers, KNN
 * `<->`, and the lon/lat boxes around a point before ST_DWithin on the sphere, so distances agree
 * with the embedded store's great-circle metres. Nothing per feature is held in Node beyond the
 * rows a query returns.
 */

interface LayerRow {
  id: number;
  uid: string;
  name: string;
  source_file: string;
  format: LayerInfo['format'];
  licence: string | null;
  source_text: string | null;
  feature_count: string;
  geometry_types: Record<string, number>;
  min_lon: number | null;
  min_lat: number | null;
  max_lon: number | null;
  max_lat: number | null;
  size_bytes: string;
  warnings: string[];
  created_at: string;
}

interface FeatureRow {
  fid: string;
  source_id: string;
  sublayer: string | null;
  wkb: Buffer;
  tags: Record<string, unknown>;
  d?: number;
}

const toInfo = (r: LayerRow): LayerInfo => ({
  id: r.uid,
  name: r.name,
  sourceFile: r.source_file,
  format: r.format,
  // BIGINT arrives as text from the driver; counts and sizes stay far below 2^53.
  featureCount: Number(r.feature_count),
  geometryTypes: r.geometry_types,
  bbox: r.min_lon === null ? null : [r.min_lon, r.min_lat!, r.max_lon!, r.max_lat!],
  sizeBytes: Number(r.size_bytes),
  licence: r.licence,
  sourceText: r.source_text ?? r.source_file,
  warnings: r.warnings,
  createdAt: r.created_at,
});

const COLUMNS = 'fid, source_id, sublayer, ST_AsBinary(geom) AS wkb, tags';
/** Rows a scan fetches at a time: what it holds in memory at once. */
const SCAN_PAGE = 2000;
/**
 * Each layer's column summary (its vocabulary), collected while it is imported as in the
 * embedded store; the row goes with its layer.
 */
const SUMMARY_MIGRATIONS = [
  'CREATE TABLE layer_summaries (layer_id INTEGER PRIMARY KEY REFERENCES layers (id) ON DELETE CASCADE, summary JSONB NOT NULL)',
];
/** No LIMIT: ALL. */
const limitOf = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? null : Math.max(0, Math.trunc(n)));

export interface PostgisLayerStoreOptions {
  pool: pg.Pool;
  clock?: () => Date;
  /**
   * Streaming replicas: a layer's features are read there (the layer list, its summary and
   * every write stay on the primary, `pool`).
   */
  reads?: DatabaseRouter;
}

export async function openPostgisLayerStore({ pool, clock = () => new Date(), reads }: PostgisLayerStoreOptions): Promise<LayerStore> {
  await applyPgMigrations(pool, 'layers', PG_LAYER_MIGRATIONS);
  await applyPgMigrations(pool, 'layer-summaries', SUMMARY_MIGRATIONS);

  const drop = async (q: pg.Pool | pg.PoolClient, n: number) => {
    await q.query(`DROP TABLE IF EXISTS ${featureTable(n)}, ${loadTable(n)}`);
    await q.query('DELETE FROM layers WHERE id = $1', [n]);
  };

  // An import cut short by a crash left its table and an 'importing' row. A live import (this or
  // another replica) holds its layer's advisory lock, so only orphans are removed.
  {
    const c = await pool.connect();
    try {
      for (const { id } of (await c.query<{ id: number }>("SELECT id FROM layers WHERE state = 'importing'")).rows) {
        const got = (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [id])).rows[0]!.ok;
        if (!got) continue;
        await drop(c, id);
        await c.query('SELECT pg_advisory_unlock($1)', [id]);
      }
    } finally {
      c.release();
    }
  }

  const layerRow = async (uid: string): Promise<LayerRow | null> =>
    (await pool.query<LayerRow>("SELECT * FROM layers WHERE uid = $1 AND state = 'ready'", [uid])).rows[0] ?? null;

  /**
   * The table number of each ready layer asked about: a uid names one table for good, so a
   * question costs one round trip, not two. A layer another process removes is found out when
   * its table is gone (`gone`).
   */
  const numbers = new Map<string, number>();
  /**
   * The primary's WAL position once each layer was found ready there (read your own writes): a
   * replica reads its features only once it has replayed that far, so never a table it holds
   * half-written. Features of a ready layer never change, so one position per layer lasts.
   */
  const marks = new Map<string, Lsn | null>();
  const layerNumber = async (uid: string): Promise<number> => {
    const known = numbers.get(uid);
    if (known !== undefined) return known;
    const r = await layerRow(uid);
    if (!r) throw new LayerNotFoundError(uid);
    if (reads?.replicated) marks.set(uid, await reads.mark());
    numbers.set(uid, r.id);
    return r.id;
  };
  const after = (uids: string[]) => uids.map((u) => marks.get(u) ?? null).reduce<Lsn | null>((a, b) => (a === null || (b !== null && b > a) ? b : a), null);
  /** A read of layers' features: on a replica that has them when there are replicas. */
  const read = <R extends pg.QueryResultRow>(uids: string[], text: string, values: unknown[]) =>
    reads ? reads.query<R>(text, values, { after: after(uids) }) : pool.query<R>(text, values);
  const lend = async (uid: string, primaryOnly = false): Promise<ReadLease> => {
    if (reads && !primaryOnly) return reads.connect({ after: after([uid]) });
    const client = await pool.connect();
    return { client, onReplica: false, release: () => client.release() };
  };
  /** A query on the table of a layer removed meanwhile (undefined_table): that layer is not found. */
  const gone =
    (...uids: string[]) =>
    (e: unknown): never => {
      if ((e as { code?: string }).code === '42P01') {
        for (const u of uids) numbers.delete(u);
        throw new LayerNotFoundError(uids.length === 1 ? uids[0]! : uids.join(', '));
      }
      throw e;
    };

  const stored = (uid: string, r: FeatureRow): StoredFeature => ({
    layerId: uid,
    fid: Number(r.fid),
    sourceId: r.source_id,
    sublayer: r.sublayer,
    geometry: decodeWkb(r.wkb),
    tags: r.tags,
  });
  const near = (uid: string, r: FeatureRow): NearFeature => ({ ...stored(uid, r), distanceMeters: r.d! });

  /** Features of a layer meeting a condition (its parameters in `q`) and the tag tests, in fid order. */
  const features = async (uid: string, q: Params, where: string, opts: QueryOptions) => {
    const t = featureTable(await layerNumber(uid));
    const tags = matchSql(q, opts.match);
    const rows = await read<FeatureRow>([uid], `SELECT ${COLUMNS} FROM ${t} WHERE ${where} AND ${tags} ORDER BY fid LIMIT ${q.add(limitOf(opts.limit))}`, q.values).catch(gone(uid));
    return rows.rows.map((r) => stored(uid, r));
  };

  // NUL is not storable in JSONB; the feature rows drop it too.
  const storeSummary = (q: pg.Pool | pg.PoolClient, n: number, summary: LayerSummary) =>
    q.query('INSERT INTO layer_summaries (layer_id, summary) VALUES ($1, $2) ON CONFLICT (layer_id) DO UPDATE SET summary = excluded.summary', [
      n,
      JSON.stringify(summary, (_k, v: unknown) => (typeof v === 'string' ? v.replaceAll('\0', '') : v)),
    ]);

  /** Pages of features through a cursor in its own read-only transaction; a break ends it. */
  async function* cursor(uid: string, sql: string, params: unknown[]): AsyncGenerator<StoredFeature[]> {
    const first = async (l: ReadLease) => {
      try {
        await l.client.query('BEGIN READ ONLY');
        await l.client.query(`DECLARE scan NO SCROLL CURSOR FOR ${sql}`, params);
        return await l.client.query<FeatureRow>(`FETCH ${SCAN_PAGE} FROM scan`);
      } catch (e) {
        await l.client.query('ROLLBACK').catch(() => {});
        l.release(e);
        throw e;
      }
    };
    let l = await lend(uid);
    let page: pg.QueryResult<FeatureRow>;
    try {
      page = await first(l);
    } catch (e) {
      if (!l.onReplica) return gone(uid)(e);
      // A replica that failed before the first page (stopped, or a conflict with replay): the primary reads it.
      l = await lend(uid, true);
      page = await first(l).catch(gone(uid));
    }
    let ok = false;
    let failed: unknown;
    try {
      for (;;) {
        if (page.rows.length) yield page.rows.map((r) => stored(uid, r));
        if (page.rows.length < SCAN_PAGE) break;
        page = await l.client.query<FeatureRow>(`FETCH ${SCAN_PAGE} FROM scan`);
      }
      ok = true;
    } catch (e) {
      failed = e;
      throw e;
    } finally {
      // Also on an early break: the cursor and its transaction end with the read.
      await l.client.query(ok ? 'COMMIT' : 'ROLLBACK').catch(() => {});
      l.release(failed);
    }
  }

  const withinRows = async (uid: string, p: Position, metres: number, limit: number | undefined, match: QueryOptions['match']) => {
    const t = featureTable(await layerNumber(uid));
    const q = new Params();
    const [lon, lat, radius, lim] = [q.add(p[0]), q.add(p[1]), q.add(metres), q.add(limitOf(limit))];
    const point = `ST_SetSRID(ST_MakePoint(${lon}, ${lat}), 4326)::geography`;
    // The geometry index through the lon/lat boxes of the circle (the embedded store's own
    // prefilter), then the exact test. use_spheroid false: great-circle metres on the
    // mean-radius sphere, as the embedded store measures.
    const boxes = nearBoxes(q.values, p, metres);
    const rows = await read<FeatureRow>(
      [uid],
      `SELECT ${COLUMNS}, ST_Distance(geom::geography, ${point}, false) AS d FROM ${t}
       WHERE ${boxes} AND ST_DWithin(geom::geography, ${point}, ${radius}, false) AND ${matchSql(q, match)}
       ORDER BY d, fid LIMIT ${lim}`,
      q.values,
    ).catch(gone(uid));
    return rows.rows.map((r) => near(uid, r));
  };

  return {
    async create(layer) {
      const uid = randomUUID();
      const client = await pool.connect();
      try {
        const n = (
          await client.query<{ id: number }>(
            `INSERT INTO layers (uid, name, source_file, format, licence, source_text, state, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'importing', $7) RETURNING id`,
            [uid, layer.name, layer.sourceFile, layer.format, layer.licence, layer.sourceText, clock().toISOString()],
          )
        ).rows[0]!.id;
        // Held for the whole import: marks it live for crash clean-up (see above).
        await client.query('SELECT pg_advisory_lock($1)', [n]);
        // Loaded unlogged (no WAL for rows written twice), kept in the logged table (postgis-layer-writer.ts).
        await client.query(`CREATE UNLOGGED TABLE ${loadTable(n)} (${FEATURE_COLUMNS})`);
        await client.query(`CREATE TABLE ${featureTable(n)} (${FEATURE_COLUMNS})`);
        const summary = createSummaryCollector();
        const writer = createPgLayerWriter({
          client,
          pool,
          n,
          uid,
          // In the transaction that makes the layer ready, so no question finds it without its words.
          beforeReady: async (c) => void (await storeSummary(c, n, summary.result())),
          info: async () => toInfo((await layerRow(uid))!),
          discard: async () => {
            try {
              await drop(client, n);
              await client.query('SELECT pg_advisory_unlock($1)', [n]);
            } finally {
              client.release();
            }
          },
        });
        return {
          id: writer.id,
          get count() {
            return writer.count;
          },
          async add(fs) {
            await writer.add(fs);
            for (const f of fs) summary.add(f.properties);
          },
          commit: (warnings) => writer.commit(warnings),
          abort: () => writer.abort(),
        };
      } catch (e) {
        client.release();
        throw e;
      }
    },

    async list() {
      return (await pool.query<LayerRow>("SELECT * FROM layers WHERE state = 'ready' ORDER BY created_at, id")).rows.map(toInfo);
    },

    async get(uid) {
      const r = await layerRow(uid);
      return r ? toInfo(r) : null;
    },

    async remove(uid) {
      const r = await layerRow(uid);
      if (!r) return false;
      await inTransaction(pool, (c) => drop(c, r.id));
      numbers.delete(uid);
      return true;
    },

    async feature(uid, fid) {
      const t = featureTable(await layerNumber(uid));
      const r = (await read<FeatureRow>([uid], `SELECT ${COLUMNS} FROM ${t} WHERE fid = $1`, [fid]).catch(gone(uid))).rows[0];
      return r ? stored(uid, r) : null;
    },

    inBBox(uid, [w, s, e, n], opts = {}) {
      const q = new Params();
      const box = `ST_MakeEnvelope(${q.add(w)}, ${q.add(s)}, ${q.add(e)}, ${q.add(n)}, 4326)`;
      return features(uid, q, opts.boxOnly ? `geom && ${box}` : `geom && ${box} AND ST_Intersects(geom, ${box})`, opts);
    },

    within(uid, point, metres, opts = {}) {
      return withinRows(uid, point, metres, opts.limit, opts.match);
    },

    async nearest(uid, point, k, opts = {}) {
      const t = featureTable(await layerNumber(uid));
      if (k <= 0) return [];
      const q = new Params();
      const at = `ST_SetSRID(ST_MakePoint(${q.add(point[0])}, ${q.add(point[1])}), 4326)`;
      // KNN on the geometry index finds k features passing the tag tests by planar lon/lat
      // distance; the farthest of them on the sphere bounds the true k nearest (k such features lie
      // that close), so a within query of that radius ordered on the sphere answers exactly, ties
      // by fid as the embedded store orders them.
      const far = await read<{ r: number | null }>(
        [uid],
        `SELECT max(ST_Distance(geom::geography, ${at}::geography, false)) AS r FROM (
           SELECT geom FROM ${t} WHERE ${matchSql(q, opts.match)} ORDER BY geom <-> ${at} LIMIT ${q.add(Math.trunc(k))}
         ) k`,
        q.values,
      ).catch(gone(uid));
      const r = far.rows[0]?.r;
      if (r === null || r === undefined) return [];
      // A hair wider than the farthest: the same distance computed by ST_DWithin must not drop it.
      return withinRows(uid, point, r * (1 + 1e-9) + 1e-6, k, opts.match);
    },

    containing(uid, [lon, lat], opts = {}) {
      const q = new Params();
      const point = `ST_SetSRID(ST_MakePoint(${q.add(lon)}, ${q.add(lat)}), 4326)`;
      // ST_Covers rather than ST_Contains: a point on the edge counts, as in the embedded store.
      return features(uid, q, `geom && ${point} AND ST_Dimension(geom) = 2 AND ST_Covers(geom, ${point})`, opts);
    },

    intersecting(uid, geometry, opts = {}) {
      const q = new Params();
      const g = `ST_SetSRID(ST_GeomFromGeoJSON(${q.add(JSON.stringify(geometry))}), 4326)`;
      return features(uid, q, `geom && ${g} AND ST_Intersects(geom, ${g})`, opts);
    },

    async *scan(uid, opts = {}) {
      const t = featureTable(await layerNumber(uid));
      const q = new Params();
      let where = matchSql(q, opts.match);
      if (opts.bbox) {
        const [w, s, e, n] = opts.bbox;
        const box = `ST_MakeEnvelope(${q.add(w)}, ${q.add(s)}, ${q.add(e)}, ${q.add(n)}, 4326)`;
        where += ` AND geom && ${box} AND ST_Intersects(geom, ${box})`;
      }
      yield* cursor(uid, `SELECT ${COLUMNS} FROM ${t} WHERE ${where} ORDER BY fid`, q.values);
    },

    async countPerPolygon(polygons, subject) {
      const pt = featureTable(await layerNumber(polygons.layerId));
      const st = featureTable(await layerNumber(subject.layerId));
      const q = new Params();
      // One GROUP BY in the database: the subject's features never travel, whatever their number.
      const rows = await read<{ fid: string; n: string }>(
        [polygons.layerId, subject.layerId],
        `SELECT p.fid, count(s.fid) AS n FROM ${pt} p
         LEFT JOIN ${st} s ON s.geom && p.geom AND ST_Intersects(p.geom, s.geom) AND ${matchSql(q, subject.match, 's.tags')}
         WHERE ST_Dimension(p.geom) = 2 AND NOT ST_IsEmpty(p.geom) AND ${matchSql(q, polygons.match, 'p.tags')}
         GROUP BY p.fid ORDER BY p.fid`,
        q.values,
      ).catch(gone(polygons.layerId, subject.layerId));
      return rows.rows.map((r) => ({ fid: Number(r.fid), count: Number(r.n) }));
    },

    async summary(uid) {
      const n = await layerNumber(uid);
      const kept = (await pool.query<{ summary: LayerSummary }>('SELECT summary FROM layer_summaries WHERE layer_id = $1', [n])).rows[0];
      if (kept) return kept.summary;
      // A layer loaded without one (importLayerFiles of an older build): read it once through a cursor and keep it.
      const c = createSummaryCollector();
      for await (const page of cursor(uid, `SELECT ${COLUMNS} FROM ${featureTable(n)}`, [])) for (const f of page) c.add(f.tags);
      const summary = c.result();
      await storeSummary(pool, n, summary);
      return summary;
    },

    // The pool belongs to the service, which ends it.
    async close() {},
  };
}
