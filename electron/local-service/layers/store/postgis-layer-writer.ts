import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { connectNow } from '../../pg/database';
import { bboxOf, type BBox } from './geo';
import type { LayerInfo, LayerWriter } from './layer-store';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER, CopyRowBuffer } from './pg-copy-binary';
import { tagsJson } from './sqlite-layer-store';

/** Rows per chunk handed to a COPY stream: a few MB, the memory an import holds per stream. */
const COPY_ROWS = 10_000;
const SRID = 4326;
/**
 * COPY streams loading side by side, each on its own connection: the server parses rows on one
 * core per stream, so two keep a two-core database busy while Node encodes the next chunk. The
 * second connection is taken only when the pool has one free at once: an import already holds
 * its own, and waiting for another while holding it waits for ever once every connection of the
 * pool is held that way (two imports on a pool of four, or one on the CLI's pool of two with a
 * query of its own). Without one the load, the sort and the index builds run on one connection.
 */
const STREAMS = 2;

/** The feature table of layer `n` (a number the database gave, never user text). */
export const featureTable = (n: number) => `layer_features_${Math.trunc(n)}`;
/** The table an import of layer `n` loads into before its rows are written in geometry order. */
export const loadTable = (n: number) => `${featureTable(n)}_load`;
/** The columns of a feature table and of its load table. */
export const FEATURE_COLUMNS = 'fid BIGINT NOT NULL, source_id TEXT NOT NULL, sublayer TEXT, geom geometry(Geometry, 4326) NOT NULL, tags JSONB NOT NULL';

export interface PgWriterDeps {
  /** The import's own connection (it holds the layer's advisory lock). */
  client: pg.PoolClient;
  /** For the other COPY stream and the index built beside the key, when it has a connection free. */
  pool: pg.Pool;
  n: number;
  uid: string;
  /**
   * Writes what goes with the layer (its summary) on the import's connection, in the
   * transaction that makes it ready: never through the pool, whose connections may all be busy.
   */
  beforeReady?(c: pg.PoolClient): Promise<void>;
  /** Reads the finished layer's row (once the import's connection is back in the pool). */
  info(): Promise<LayerInfo>;
  /** Drops the table and the row; releases the client. */
  discard(): Promise<void>;
}

/** One binary COPY kept open on a connection for the whole load; chunks are written as they come. */
interface CopyStream {
  write(chunk: Buffer): Promise<void>;
  /** Ends the COPY and waits for the server to accept it. */
  end(): Promise<void>;
  /** Stops the COPY (the server discards its rows). */
  cancel(): Promise<void>;
}

function openCopy(client: pg.PoolClient, table: string): CopyStream {
  const stream: Writable = client.query(copyFrom(`COPY ${table} (fid, source_id, sublayer, geom, tags) FROM STDIN (FORMAT binary)`));
  let failed: unknown = null;
  stream.on('error', (e) => (failed ??= e));
  const finished = once(stream, 'finish');
  // 'finish' never comes after an error: the error settles it instead.
  finished.catch(() => {});
  const check = () => {
    if (failed) throw failed;
  };
  stream.write(COPY_BINARY_HEADER);
  return {
    async write(chunk) {
      check();
      // Back-pressure: at most one chunk waits in Node's buffer while the server reads.
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), finished]);
      check();
    },
    async end() {
      check();
      stream.end(COPY_BINARY_TRAILER);
      await finished;
      check();
    },
    async cancel() {
      if (failed || stream.writableFinished) return;
      stream.destroy(new Error('layer import cancelled'));
      await finished.catch(() => {});
    },
  };
}

/**
 * One import into PostGIS: features stream in binary COPY (EWKB geometry, no text escaping) over
 * STREAMS connections at once, COPY_ROWS per chunk (memory holds a chunk per stream), into an
 * unlogged load table with no index to maintain. commit() writes the rows into the layer's
 * table ordered by geometry (PostGIS sorts along a Hilbert curve), so the features a distance
 * question reads lie on a few pages rather than one page each, as they would in the order they
 * came (a 2 km question on 10M points, 32 users at once, touched 90 pages, 81 of them from
 * outside PostgreSQL's buffers; 57 and 10 once sorted, and the database's CPU per request
 * halved). It then adds the key and one GiST index
 * on the geometry, side by side on two connections: PostGIS sorts geometry for a packed GiST
 * build (sortsupport), many times faster than inserting row by row or building a geography
 * index, which has no sorted build. Distance questions use that index too, through a
 * lon/lat box around the point (boxesAround) before the exact test on the sphere. One
 * transaction then records the figures and makes the layer visible; until then nothing lists
 * it, and a crash leaves an orphan the next open removes.
 */
export function createPgLayerWriter(d: PgWriterDeps): LayerWriter {
  const { client, n } = d;
  const table = featureTable(n);
  const load = loadTable(n);
  let count = 0;
  let done = false;
  const types: Record<string, number> = {};
  const ext: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  /** Connections besides the import's own, taken from the pool on the first features if it has them free. */
  const extra: pg.PoolClient[] = [];
  const takeExtra = async () => {
    while (extra.length < STREAMS - 1) {
      const c = connectNow(d.pool);
      if (!c) return;
      extra.push(await c);
    }
  };
  let streams: CopyStream[] | null = null;
  let next = 0;
  const rows = new CopyRowBuffer();
  let pending = 0;

  const open = async () => {
    if (streams) return streams;
    // No autovacuum while loading: on a load of minutes it would scan the growing table beside
    // the COPY and then hold up the index builds, whose locks it must first give way to.
    await client.query(`ALTER TABLE ${load} SET (autovacuum_enabled = false)`);
    await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    await takeExtra();
    streams = [client, ...extra].map((c) => openCopy(c, load));
    return streams;
  };
  /** Stops any COPY still open (the server discards its rows), then gives the extra connections back. */
  const release = async () => {
    if (streams) await Promise.allSettled(streams.map((x) => x.cancel()));
    streams = null;
    for (const c of extra.splice(0)) c.release();
  };

  /** Hands the rows encoded so far to the next stream in turn. */
  const send = async () => {
    if (!pending) return;
    const s = await open();
    pending = 0;
    await s[next++ % s.length]!.write(rows.take());
  };

  /** Ends every stream; all settle before the connections are used again. */
  const endStreams = async () => {
    if (!streams) return;
    const ended = await Promise.allSettled(streams.map((s) => s.end()));
    streams = null;
    for (const e of ended) if (e.status === 'rejected') throw e.reason;
  };

  return {
    id: d.uid,
    get count() {
      return count;
    },
    async add(features) {
      if (done) throw new Error('layer import already finished');
      for (const f of features) {
        const b = bboxOf(f.geometry);
        if (!b) continue;
        if (b[0] < -180 || b[2] > 180 || b[1] < -90 || b[3] > 90)
          throw new RangeError(`feature ${f.sourceId} has coordinates outside longitude/latitude (${b.map((x) => x.toFixed(1)).join(', ')}): a projected CRS? Reproject it to WGS84 first`);
        rows.row(++count, f.sourceId, f.sublayer ?? null, f.geometry, f.propertiesJson ?? tagsJson(f.properties), SRID);
        types[f.geometry.type] = (types[f.geometry.type] ?? 0) + 1;
        if (b[0] < ext[0]) ext[0] = b[0];
        if (b[1] < ext[1]) ext[1] = b[1];
        if (b[2] > ext[2]) ext[2] = b[2];
        if (b[3] > ext[3]) ext[3] = b[3];
        if (++pending >= COPY_ROWS) await send();
      }
    },
    async commit(warnings) {
      if (done) throw new Error('layer import already finished');
      const has = count > 0;
      try {
        await send();
        await endStreams();
        await takeExtra();
        const side = extra[0];
        const conns = side ? [client, side] : [client];
        // Two halves (by fid) sorted and written at once, one per connection and core (a third
        // less time than one sort on 10M points): each connection fills pages of its own, and
        // both move along the same curve, so a page still holds features near each other. Each
        // sorts in memory up to work_mem, on the database server; both settle before either
        // connection is used again.
        const written = await Promise.allSettled(
          conns.map(async (c, half) => {
            await c.query("SET work_mem = '256MB'");
            const part = conns.length > 1 ? `WHERE fid % ${conns.length} = ${half}` : '';
            await c.query(`INSERT INTO ${table} SELECT * FROM ${load} ${part} ORDER BY geom`);
            await c.query('RESET work_mem');
            // The inserts reach the statistics now (PostgreSQL 15+), not up to 10 s later: a count
            // arriving after the VACUUM below would send autovacuum over the table again.
            await c.query('SELECT pg_stat_force_next_flush()').catch(() => {});
          }),
        );
        for (const w of written) if (w.status === 'rejected') throw w.reason;
        await client.query(`DROP TABLE ${load}`);
        // Index builds sort in memory up to this much, on the database server.
        const mem = "SET maintenance_work_mem = '512MB'";
        const gist = async (c: pg.PoolClient) => {
          await c.query(mem);
          await c.query(`CREATE INDEX ${table}_geom ON ${table} USING gist (geom)`);
          await c.query('RESET maintenance_work_mem');
        };
        const key = async () => {
          await client.query(mem);
          // The key's index built as an index (a SHARE lock, which the GiST build's does not
          // block), then made the key: ADD PRIMARY KEY (fid) would wait for the GiST build.
          await client.query(`CREATE UNIQUE INDEX ${table}_pkey ON ${table} (fid)`);
          await client.query('RESET maintenance_work_mem');
        };
        if (side) {
          // Both settle before either connection is used again or released.
          const built = await Promise.allSettled([gist(side), key()]);
          for (const b of built) if (b.status === 'rejected') throw b.reason;
        } else {
          await gist(client);
          await key();
        }
        await client.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${table}_pkey`);
        await release();
        // Vacuumed here, before the layer is listed, not by autovacuum once it serves: an
        // insert-only table of millions of rows is otherwise read whole again (visibility map,
        // hint bits) about a minute later, while the first questions on it run. The index has
        // nothing to clean after inserts alone. VACUUM runs outside a transaction.
        await client.query(`VACUUM (ANALYZE, INDEX_CLEANUP OFF) ${table}`);
        await client.query('BEGIN');
        await client.query(`ALTER TABLE ${table} RESET (autovacuum_enabled)`);
        await d.beforeReady?.(client);
        await client.query(
          `UPDATE layers SET state = 'ready', feature_count = $1, geometry_types = $2, min_lon = $3, min_lat = $4, max_lon = $5, max_lat = $6,
             size_bytes = pg_total_relation_size('${table}'), warnings = $7 WHERE id = $8`,
          [count, JSON.stringify(types), has ? ext[0] : null, has ? ext[1] : null, has ? ext[2] : null, has ? ext[3] : null, JSON.stringify(warnings), n],
        );
        await client.query('COMMIT');
      } catch (e) {
        await release();
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
      done = true;
      await client.query('SELECT pg_advisory_unlock($1)', [n]).catch(() => {});
      client.release();
      return d.info();
    },
    async abort() {
      if (done) return;
      done = true;
      await release();
      await d.discard();
    },
  };
}
