import type Database from 'better-sqlite3';
import type { Geometry } from 'geojson';
import { decodeWkb } from '../../../ground/wkb';
import type { BBox } from './geo';
import type { TagMatch } from './layer-store';
import { passes } from './summary';

// Reading a layer's features in boxes: the SQL and the decoding of its rows.

export interface Row {
  fid: number;
  source_id: string;
  sublayer: string | null;
  geom: Buffer;
  tags: string;
}

/** A spatial-index cell's features that meet a box, their columns joined in SQL (see statementsFor). */
interface CellRow {
  fids: string;
  ids: string;
  subs: string;
  tags: string;
  geoms: Buffer;
  sizes: string;
}

export interface BoxStatements {
  /** Whether the layer has a cells index (`lm_<n>`); layers imported before cells have none. */
  cells: boolean;
  candidates: Database.Statement;
  one: Database.Statement;
}

export type Candidate = { fid: number; sourceId: string; sublayer: string | null; geometry: Geometry; tags: Record<string, unknown> };

/** A layer's box query and single-feature query. */
export function boxStatements(db: Database.Database, n: number): BoxStatements {
  const cells = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(`lm_${n}`) !== undefined;
  return {
    cells,
    // The box (x0, x1, y0, y1) tests the cells, then their members.
    // One row per cell with its members' columns joined (JSON arrays, geometries end to end):
    // a row and a Buffer per feature cost better-sqlite3 three times the read itself.
    candidates: db.prepare(
      cells
        ? `SELECT json_group_array(f.fid) AS fids, json_group_array(f.source_id) AS ids, json_group_array(f.sublayer) AS subs,
             '[' || group_concat(f.tags, ',') || ']' AS tags, CAST(group_concat(f.geom, '') AS BLOB) AS geoms, json_group_array(length(f.geom)) AS sizes
           FROM lr_${n} r JOIN lm_${n} m ON m.cell = r.cell JOIN lf_${n} f ON f.fid = m.fid
           WHERE r.x1 >= ? AND r.x0 <= ? AND r.y1 >= ? AND r.y0 <= ? AND m.x1 >= ? AND m.x0 <= ? AND m.y1 >= ? AND m.y0 <= ? GROUP BY r.cell`
        : `SELECT f.fid, f.source_id, f.sublayer, f.geom, f.tags FROM lr_${n} r JOIN lf_${n} f ON f.fid = r.fid
           WHERE r.x1 >= ? AND r.x0 <= ? AND r.y1 >= ? AND r.y0 <= ?`,
    ),
    one: db.prepare(`SELECT fid, source_id, sublayer, geom, tags FROM lf_${n} WHERE fid = ?`),
  };
}

/** Rows whose boxes meet any of the boxes and whose tags pass, each with its decoded geometry and tags. */
export function readBoxes(q: BoxStatements, boxes: BBox[], match?: TagMatch[]): Candidate[] {
  const { candidates: stmt, cells } = q;
  const seen = new Set<number>();
  const out: Candidate[] = [];
  const take = (fid: number, sourceId: string, sublayer: string | null, tags: Record<string, unknown>, geom: Uint8Array, start: number) => {
    if (seen.has(fid)) return;
    seen.add(fid);
    if (match && !passes(tags, match)) return;
    out.push({ fid, sourceId, sublayer, geometry: decodeWkb(geom, start), tags });
  };
  for (const [x0, y0, x1, y1] of boxes) {
    if (!cells) {
      for (const row of stmt.all(x0, x1, y0, y1) as Row[]) take(row.fid, row.source_id, row.sublayer, JSON.parse(row.tags) as Record<string, unknown>, row.geom, 0);
      continue;
    }
    for (const cell of stmt.all(x0, x1, y0, y1, x0, x1, y0, y1) as CellRow[]) {
      const fids = JSON.parse(cell.fids) as number[];
      const ids = JSON.parse(cell.ids) as string[];
      const subs = JSON.parse(cell.subs) as (string | null)[];
      const tags = JSON.parse(cell.tags) as Record<string, unknown>[];
      const sizes = JSON.parse(cell.sizes) as number[];
      for (let i = 0, at = 0; i < fids.length; at += sizes[i]!, i++) take(fids[i]!, ids[i]!, subs[i]!, tags[i]!, cell.geoms, at);
    }
  }
  return out;
}
