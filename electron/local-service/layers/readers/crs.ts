/**
 * Whether a coordinate reference system can be read as WGS84 longitude/latitude without
 * reprojection. Layers are stored in WGS84 and nothing here reprojects, so a projected CRS is
 * refused with the way to fix it. NAD83 and other geographic datums differ from WGS84 by at
 * most a few hundred metres, within what a field question cares about.
 */

export const REPROJECT_HINT = 'reproject it to WGS84 first, e.g. ogr2ogr -t_srs EPSG:4326 out.gpkg in';

/** EPSG codes of geographic 2D/3D lon/lat systems in common use. */
const GEOGRAPHIC_EPSG = new Set([4326, 4269, 4258, 4979, 4230, 4283, 4167, 4619, 4617, 4674, 4490, 4612, 6318, 7844]);

export type CrsVerdict = { ok: true; name: string } | { ok: false; reason: string };

/** Judges a WKT (1 or 2) definition, as in a .prj file or gpkg_spatial_ref_sys. */
export function judgeWkt(wkt: string): CrsVerdict {
  const t = wkt.trim();
  const head = /^\s*([A-Z_]+)\s*\[\s*"([^"]*)"/i.exec(t);
  const kind = head?.[1]?.toUpperCase() ?? '';
  const name = head?.[2] ?? 'unnamed';
  if (kind === 'PROJCS' || kind === 'PROJCRS' || kind === 'PROJECTEDCRS') return { ok: false, reason: `projected CRS "${name}"` };
  if (kind === 'GEOGCS' || kind === 'GEOGCRS' || kind === 'GEODCRS' || kind === 'GEOGRAPHICCRS') return { ok: true, name };
  return { ok: false, reason: `unrecognised CRS definition "${t.slice(0, 60)}"` };
}

export function judgeEpsg(code: number, name = `EPSG:${code}`): CrsVerdict {
  return GEOGRAPHIC_EPSG.has(code) ? { ok: true, name } : { ok: false, reason: `CRS ${name} is not WGS84 longitude/latitude` };
}

/** Coordinates that cannot be longitude/latitude: a projected CRS with no definition given. */
export function outsideLonLat(b: readonly number[]): boolean {
  return b.length >= 4 && (b[0]! < -180.5 || b[2]! > 180.5 || b[1]! < -90.5 || b[3]! > 90.5);
}
