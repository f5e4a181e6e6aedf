import Database from 'better-sqlite3';
import { decodeWkb, WkbError } from '../../../ground/wkb';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { unpackOtherTags } from './other-tags';
import { judgeEpsg, judgeWkt, REPROJECT_HINT } from './crs';

/**
 * GeoPackage: every vector table listed in gpkg_contents with a geometry column. Read with
 * better-sqlite3 (already the app's database driver) and a small geometry-blob decoder: the npm
 * GeoPackage readers either pull in sql.js/WASM and a browser canvas stack (@ngageoint/geopackage)
 * or are unmaintained, and the format's blob is a short header in front of plain WKB.
 */

interface VectorTable {
  table: string;
  column: string;
  srsId: number;
}

/** The WKB inside a GeoPackage geometry blob (GeoPackage 1.x, section 2.1.3), or null when empty. */
export function gpkgBlobToWkbOffset(blob: Uint8Array): number | null {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new WkbError('not a GeoPackage geometry blob (no "GP" magic)');
  const flags = blob[3]!;
  if (flags & 0x10) return null; // empty geometry
  const envelope = (flags >> 1) & 0x07;
  const envBytes = [0, 32, 48, 48, 64][envelope];
  if (envBytes === undefined) throw new WkbError(`invalid envelope code ${envelope}`);
  return 8 + envBytes;
}

function vectorTables(db: Database.Database, file: string): VectorTable[] {
  const hasContents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gpkg_contents'").get();
  if (!hasContents) throw new LayerFileError(file, 'not a GeoPackage (no gpkg_contents table)');
  const hasGeomCols = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gpkg_geometry_columns'").get();
  if (!hasGeomCols) throw new LayerFileError(file, 'GeoPackage has no geometry (no gpkg_geometry_columns table; attribute tables only?)');
  return db
    .prepare(
      `SELECT g.table_name AS "table", g.column_name AS "column", g.srs_id AS srsId
       FROM gpkg_geometry_columns g JOIN gpkg_contents c ON c.table_name = g.table_name
       WHERE c.data_type = 'features' ORDER BY g.table_name`,
    )
    .all() as VectorTable[];
}

function checkSrs(db: Database.Database, file: string, t: VectorTable): void {
  // 0 and -1 are the spec's "undefined" systems; read them as given (lon/lat is checked by the store's bounds).
  if (t.srsId === 0 || t.srsId === -1) return;
  const srs = db
    .prepare('SELECT srs_name AS name, organization AS org, organization_coordsys_id AS code, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?')
    .get(t.srsId) as { name: string; org: string; code: number; definition: string } | undefined;
  const verdict = srs
    ? srs.org?.toUpperCase() === 'EPSG'
      ? judgeEpsg(srs.code, `EPSG:${srs.code} (${srs.name})`)
      : judgeWkt(srs.definition ?? '')
    : judgeEpsg(t.srsId);
  if (!verdict.ok) throw new LayerFileError(file, `table "${t.table}": ${verdict.reason}; ${REPROJECT_HINT}`);
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** All columns of a feature table, with its key first when it has no declared primary key (views have no rowid). */
function selectRows(db: Database.Database, table: string, pk: string): Database.Statement {
  if (pk !== 'rowid') return db.prepare(`SELECT * FROM ${quote(table)}`).raw(true);
  try {
    return db.prepare(`SELECT rowid, * FROM ${quote(table)}`).raw(true);
  } catch {
    return db.prepare(`SELECT * FROM ${quote(table)}`).raw(true);
  }
}

export const gpkgReader: LayerReader = {
  format: 'gpkg',
  licence: null,
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (e) {
      throw new LayerFileError(file, `not a GeoPackage (${e instanceof Error ? e.message : String(e)})`);
    }
    try {
      const tables = vectorTables(db, file);
      if (!tables.length) throw new LayerFileError(file, 'GeoPackage has no vector table with a geometry column');
      for (const t of tables) checkSrs(db, file, t);
      const total = tables.reduce((s, t) => s + (db.prepare(`SELECT count(*) AS n FROM ${quote(t.table)}`).get() as { n: number }).n, 0);
      let done = 0;
      let empty = 0;
      for (const t of tables) {
        const pk = (db.prepare(`SELECT name FROM pragma_table_info(?) WHERE pk > 0`).pluck().get(t.table) as string | undefined) ?? 'rowid';
        const stmt = selectRows(db, t.table, pk);
        const cols = stmt.columns().map((c) => c.name);
        const geomAt = cols.indexOf(t.column);
        const pkAt = cols.indexOf(pk);
        for (const row of stmt.iterate() as IterableIterator<unknown[]>) {
          if ((++done & 1023) === 0) {
            throwIfAborted(opts.signal, file);
            opts.onProgress?.({ done, total, unit: 'items' });
          }
          const blob = row[geomAt] as Uint8Array | null;
          // A view registered as a feature table may have no key at all: number its rows.
          const fid = pkAt >= 0 ? row[pkAt] : done;
          let geometry;
          try {
            const off = blob ? gpkgBlobToWkbOffset(blob) : null;
            geometry = off === null ? null : decodeWkb(blob!, off);
          } catch (e) {
            throw new LayerFileError(file, `table "${t.table}" feature ${String(fid)}: ${e instanceof Error ? e.message : String(e)}`);
          }
          if (!geometry) {
            empty++;
            continue;
          }
          const properties: Record<string, unknown> = {};
          for (let i = 0; i < cols.length; i++) {
            if (i === geomAt || i === pkAt) continue;
            const v = row[i];
            properties[cols[i]!] = v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v;
          }
          yield { sourceId: `${t.table}/${String(fid)}`, sublayer: t.table, geometry, properties: unpackOtherTags(properties) };
        }
      }
      opts.onProgress?.({ done, total, unit: 'items' });
      if (empty) opts.warn?.(`${empty} row(s) without geometry not imported`);
    } finally {
      db.close();
    }
  },
};
