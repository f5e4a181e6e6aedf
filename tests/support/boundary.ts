/**
 * Points exactly at a radius, for tests of inclusive "within" comparisons.
 *
 * A point north of the equator on one meridian is at great-circle distance R·Δφ. Near the
 * equator a latitude's last bit is finer than a metre figure's, so among the doubles next to
 * the destination point there is usually one whose computed distance is exactly the radius.
 * Such a point counts only when every common way to write the haversine (atan2 or asin, degrees
 * to radians multiplied in either order) gives exactly the radius and the meridian arc agrees to
 * a micrometre: then no reasonable implementation puts it on either side by rounding.
 */

/** Mean earth radius turf uses (metres); the layer questions measure on it. */
export const TURF_RADIUS_M = 6371008.8;
/** Earth radius geokdbush uses (km); the built-in catalog and uploads paths measure on it. */
export const GEOKDBUSH_RADIUS_KM = 6371;

const f64 = new Float64Array(1);
const bits = new BigInt64Array(f64.buffer);

/** The double `k` steps of the last bit away from `x` (x > 0). */
function step(x: number, k: number): number {
  f64[0] = x;
  bits[0] = bits[0]! + BigInt(k);
  return f64[0];
}

/** Great-circle distances between (lon, 0) and (lon, lat), each formulation as written in textbooks. */
export function meridianDistances(radius: number, lat: number): number[] {
  const out: number[] = [];
  for (const rad of [(d: number) => (d * Math.PI) / 180, (d: number) => d * (Math.PI / 180)]) {
    const dphi = rad(lat);
    const s = Math.sin(dphi / 2);
    const a = s * s;
    out.push(2 * radius * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a)), 2 * radius * Math.asin(Math.sqrt(a)));
  }
  return out;
}

export interface OnRadius {
  /** The radius, in the unit of the sphere's radius. */
  r: number;
  /** Latitude of the point north of (lon, 0) at exactly `r`. */
  lat: number;
}

/**
 * The first radius of `radii` at which a point north of the equator lies exactly at that radius by
 * every formulation; throws when none does (the test then cannot say what it claims).
 */
export function exactlyAt(sphereRadius: number, radii: readonly number[], arcTolerance: number): OnRadius {
  for (const r of radii) {
    const dest = ((r / sphereRadius) * 180) / Math.PI;
    for (let k = -64; k <= 64; k++) {
      const lat = step(dest, k);
      const arc = sphereRadius * ((lat * Math.PI) / 180);
      if (Math.abs(arc - r) > arcTolerance) continue;
      if (meridianDistances(sphereRadius, lat).every((d) => d === r)) return { r, lat };
    }
  }
  throw new Error(`no latitude lies exactly at any of ${radii.join(', ')} on a sphere of ${sphereRadius}`);
}

/** Radii in metres to try, round numbers first. */
export const METRE_RADII = Array.from({ length: 50 }, (_, i) => (i + 1) * 100);
/** Radii in km to try. */
export const KM_RADII = Array.from({ length: 50 }, (_, i) => i + 1);
