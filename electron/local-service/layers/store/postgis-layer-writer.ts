import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { LayerFeature } from '../types';
import { encodeWkb } from '../../../ground/wkb';
import { bboxOf, type BBox } from './geo';
import type { LayerInfo, LayerWriter } from './layer-store';
import { tagsJson } from './sqlite-layer-store';

/** Features per COPY statement: a few MB of text, the memory an import holds at once. */
const COPY_ROWS = 10_000;
const SRID = 4326;

/** The feature table of layer `n` (a number the database gave, never user text). */
export const featureTable = (n: number) => `layer_features_${Math.trunc(n)}`;

/** COPY text format: backslash, tab and line breaks escaped; NUL is not storable in text or JSONB. */
function copyText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\\\t\n\r\u0000]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\u0000/g, '') : s;
}

/** WKB with the SRID flag and 4326 after the type (EWKB), which a geometry(…, 4326) column accepts. */
function ewkbHex(wkb: Buffer): string {
  const out = Buffer.allocUnsafe(wkb.length + 4);
  out[0] = 1;
  out.writeUInt32LE((wkb.readUInt32LE(1) | 0x20000000) >>> 0, 1);
  out.writeUInt32LE(SRID, 5);
  wkb.copy(out, 9, 5);
  return out.toString('hex');
}

export interface PgWriterDeps {
  /** The import's own connection (it holds the layer's advisory lock). */
  client: pg.PoolClient;
  /** For a second connection: the two indexes build side by side. */
  pool: pg.Pool;
  n: number;
  uid: string;
  /** Reads the finished layer's row. */
  info(): Promise<LayerInfo>;
  /** Drops the table and the row; releases the client. */
  discard(): Promise<void>;
}

/**
 * One import into PostGIS: features stream into the layer's table with COPY, COPY_ROWS at a
 * time (memory holds one batch of text), with no index to maintain while loading. commit()
 * adds the key and the GiST indexes (geometry for boxes and containment, geography for
 * distances and KNN) after the load, which is several times faster than keeping them up to date
 * row by row; the geography index has no sorted build and takes most of the time, so it builds
 * on a second connection beside the others. Then one transaction records the figures and makes
 * the layer visible; until then nothing lists it, and a crash leaves an orphan the next open
 * removes.
 */
export function createPgLayerWriter(d: PgWriterDeps): LayerWriter {
  const { client, n } = d;
  const table = featureTable(n);
  let count = 0;
  let done = false;
  const types: Record<string, number> = {};
  const ext: BBox = [Infinity, Infinity, -Infinity, -Infinity];

  const copyBatch = async (features: readonly LayerFeature[]) => {
    let text = '';
    for (const f of features) {
      const b = bboxOf(f.geometry);
      if (!b) continue;
      if (b[0] < -180 || b[2] > 180 || b[1] < -90 || b[3] > 90)
        throw new RangeError(`feature ${f.sourceId} has coordinates outside longitude/latitude (${b.map((x) => x.toFixed(1)).join(', ')}): a projected CRS? Reproject it to WGS84 first`);
      const fid = ++count;
      const sub = f.sublayer === undefined || f.sublayer === null ? '\\N' : copyText(f.sublayer);
      text += `${fid}\t${copyText(f.sourceId)}\t${sub}\t${ewkbHex(encodeWkb(f.geometry))}\t${copyText(tagsJson(f.properties))}\n`;
      types[f.geometry.type] = (types[f.geometry.type] ?? 0) + 1;
      if (b[0] < ext[0]) ext[0] = b[0];
      if (b[1] < ext[1]) ext[1] = b[1];
      if (b[2] > ext[2]) ext[2] = b[2];
      if (b[3] > ext[3]) ext[3] = b[3];
    }
    if (!text) return;
    await pipeline(Readable.from([text]), client.query(copyFrom(`COPY ${table} (fid, source_id, sublayer, geom, tags) FROM STDIN`)));
  };

  return {
    id: d.uid,
    get count() {
      return count;
    },
    async add(features) {
      if (done) throw new Error('layer import already finished');
      for (let i = 0; i < features.length; i += COPY_ROWS) await copyBatch(features.slice(i, i + COPY_ROWS));
    },
    async commit(warnings) {
      if (done) throw new Error('layer import already finished');
      const has = count > 0;
      try {
        const side = await d.pool.connect();
        try {
          // Index builds sort in memory up to this much, on the database server.
          const mem = "SET maintenance_work_mem = '256MB'";
          // Both settle before either connection is used again or released.
          const built = await Promise.allSettled([
            (async () => {
              await side.query(mem);
              await side.query(`CREATE INDEX ${table}_geog ON ${table} USING gist ((geom::geography))`);
              await side.query('RESET maintenance_work_mem');
            })(),
            (async () => {
              await client.query(mem);
              await client.query(`ALTER TABLE ${table} ADD PRIMARY KEY (fid)`);
              await client.query(`CREATE INDEX ${table}_geom ON ${table} USING gist (geom)`);
              await client.query('RESET maintenance_work_mem');
            })(),
          ]);
          for (const b of built) if (b.status === 'rejected') throw b.reason;
        } finally {
          side.release();
        }
        await client.query('BEGIN');
        await client.query(`ANALYZE ${table}`);
        await client.query(
          `UPDATE layers SET state = 'ready', feature_count = $1, geometry_types = $2, min_lon = $3, min_lat = $4, max_lon = $5, max_lat = $6,
             size_bytes = pg_total_relation_size('${table}'), warnings = $7 WHERE id = $8`,
          [count, JSON.stringify(types), has ? ext[0] : null, has ? ext[1] : null, has ? ext[2] : null, has ? ext[3] : null, JSON.stringify(warnings), n],
        );
        await client.query('COMMIT');
      } catch (e) {
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
      await d.discard();
    },
  };
}
