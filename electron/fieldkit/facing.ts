import { COMPASS_POINTS } from '../../shared/service/imagery';
import type { Cache } from '../cache';

const EARTH_RADIUS_M = 6_371_008.8;
const rad = Math.PI / 180;

/** Compass facing in degrees from a record's text: a number, "North-East (NE)", "NE" or "North-East". */
export function facingDegrees(text: string | null): number | null {
  if (!text) return null;
  const n = /^\s*(-?\d+(?:\.\d+)?)\s*°?\s*$/.exec(text);
  if (n) return ((Number(n[1]) % 360) + 360) % 360;
  const abbr = /\(([NESW]{1,3})\)/.exec(text)?.[1] ?? text.trim();
  const i = COMPASS_POINTS.findIndex(([name, a]) => a === abbr.toUpperCase() || name.toLowerCase() === abbr.toLowerCase());
  return i < 0 ? null : i * 22.5;
}

/** Initial great-circle bearing from a to b, degrees clockwise from north. */
export function bearing(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  const φ1 = a.lat * rad, φ2 = b.lat * rad, Δλ = (b.lon - a.lon) * rad;
  const y = Math.sin(Δλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ);
  return ((Math.atan2(y, x) / rad) % 360 + 360) % 360;
}

export function distance(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface FacingCapture {
  featureId: string;
  queryId: number;
  lon: number;
  lat: number;
  facing: number;
  /** From the capture to the target. */
  bearing: number;
  /** |facing - bearing|, 0..180. */
  offBy: number;
  distanceMetres: number;
  date: string | null;
  image: string | null;
}

/**
 * Cached imagery within a distance of a target whose compass facing points at it: the bearing
 * from the capture to the target within ±tolerance of the facing. Nearest first. Records without
 * a readable facing are left out (they cannot be said to face anything).
 */
export function imageryFacing(cache: Cache, target: { lon: number; lat: number }, radiusMetres: number, toleranceDeg = 45): FacingCapture[] {
  // A box that holds the circle (wider in longitude away from the equator).
  const dLat = radiusMetres / (EARTH_RADIUS_M * rad);
  const dLon = dLat / Math.max(Math.cos(target.lat * rad), 1e-6);
  const box: [number, number, number, number] = [
    Math.max(-180, target.lon - dLon), Math.max(-90, target.lat - dLat), Math.min(180, target.lon + dLon), Math.min(90, target.lat + dLat),
  ];
  const out: FacingCapture[] = [];
  for (const c of cache.imageryNear(box)) {
    const facing = facingDegrees(c.compass);
    if (facing === null) continue;
    const d = distance(c, target);
    if (d > radiusMetres || d === 0) continue;
    const b = bearing(c, target);
    const offBy = Math.abs(((b - facing + 540) % 360) - 180);
    if (offBy > toleranceDeg) continue;
    out.push({ featureId: c.featureId, queryId: c.queryId, lon: c.lon, lat: c.lat, facing, bearing: b, offBy, distanceMetres: d, date: c.date, image: c.image });
  }
  return out.sort((x, y) => x.distanceMetres - y.distanceMetres);
}
