import type { UploadSet } from './set';
import type { UploadWarning } from './types';

// Extent of EPSG:3857 in metres: ±π·R with R = 6,378,137 m (x), and y up to about ±85.06°.
const MERCATOR_MAX = Math.PI * 6378137;
// UTM false easting 500,000 m ± one zone's width; northings from the equator (or 10,000 km south).
const UTM_EASTING = [100_000, 900_000] as const;
const UTM_NORTHING = [0, 10_000_000] as const;

/**
 * Names the projected CRS that a set of out-of-range coordinates (x, y as read) most likely
 * uses, or null when they do not look like metres at all.
 */
export function guessProjected(all: readonly [number, number][]): string | null {
  // Infinity (1e400 as read) is out of any range, not a projected unit.
  const samples = all.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (!samples.length) return null;
  // Projected positions run to thousands of metres; a stray 400 is a typo, not a CRS.
  const metres = samples.every(([x, y]) => Math.max(Math.abs(x), Math.abs(y)) >= 1000);
  if (!metres) return null;
  const mercator = samples.every(([x, y]) => Math.abs(x) <= MERCATOR_MAX && Math.abs(y) <= MERCATOR_MAX);
  const utm = samples.every(
    ([x, y]) => x >= UTM_EASTING[0] && x <= UTM_EASTING[1] && Math.abs(y) >= UTM_NORTHING[0] && Math.abs(y) <= UTM_NORTHING[1],
  );
  const names = [mercator && 'Web Mercator metres (EPSG:3857)', utm && 'UTM metres (a UTM zone such as EPSG:32631)'].filter(Boolean);
  if (!names.length) return 'coordinates look like projected units, not degrees; reproject to WGS 84 longitude/latitude (EPSG:4326)';
  return `coordinates look like ${names.join(' or ')}, not degrees; reproject to WGS 84 longitude/latitude (EPSG:4326)`;
}

/** The EPSG code a GeoJSON `crs` member names ("EPSG:4326", "urn:ogc:def:crs:EPSG::3857"); null if none. */
export function declaredCrs(doc: unknown): string | null {
  const name = (doc as { crs?: { properties?: { name?: unknown } } } | null)?.crs?.properties?.name;
  if (typeof name !== 'string') return null;
  if (/CRS:?84$/i.test(name)) return 'EPSG:4326';
  const m = /EPSG:{1,2}(?:[\d.]*:)?(\d+)$/i.exec(name);
  return m ? `EPSG:${m[1]}` : name.slice(0, 60);
}

/** Points looked at for the swapped-coordinates check (spread over the file). */
const SAMPLE = 500;

/**
 * Swapped latitude/longitude: every longitude would be a valid latitude, few points are on land
 * as read, and most are once swapped. Uses the catalog's country polygons.
 */
export function swappedWarning(
  file: string,
  features: UploadSet,
  countryAt: (lon: number, lat: number) => string,
): UploadWarning | null {
  // Plain loops: this runs once per upload over every row, in the request thread.
  let count = 0;
  for (let i = 0; i < features.length; i++) {
    if (features.type(i) !== 'Point') continue;
    if (Math.abs(features.lon(i)) > 90) return null;
    count++;
  }
  if (!count) return null;
  const step = Math.max(1, Math.floor(count / SAMPLE));
  let n = 0;
  let asRead = 0;
  let swapped = 0;
  for (let i = 0, p = -1; i < features.length; i++) {
    if (features.type(i) !== 'Point' || ++p % step) continue;
    n++;
    if (features.country(i)) asRead++;
    if (countryAt(features.lat(i), features.lon(i))) swapped++;
  }
  if (asRead > n * 0.5 || swapped < n * 0.8) return null;
  return {
    code: 'swapped_coordinates',
    message: `${file}: latitude and longitude look swapped: ${n - asRead} of ${n} points checked fall outside any country as read, ${swapped} are on land when swapped; check which column holds which`,
    file,
    checked: n,
    on_land: asRead,
    on_land_swapped: swapped,
  };
}
