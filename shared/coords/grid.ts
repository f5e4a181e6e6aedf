import * as mgrsModule from 'mgrs';
import proj4 from 'proj4';
import type { LatLon } from './angles';

// The package's ESM build (what bundlers load) has named exports; its UMD main (what Node loads)
// only a default. Either way the same two functions.
const mgrs = (mgrsModule as { default?: typeof mgrsModule }).default ?? mgrsModule;

/** UTM and MGRS cover 80°S to 84°N; the poles use UPS, which field grids here do not. */
export const GRID_MIN_LAT = -80;
export const GRID_MAX_LAT = 84;

const BANDS = 'CDEFGHJKLMNPQRSTUVWX';

export interface Utm {
  zone: number;
  band: string;
  easting: number;
  northing: number;
}

const utmDef = (zone: number, south: boolean) => `+proj=utm +zone=${zone}${south ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`;

/** The latitude band letter (C..X, 8° each, X 12°). */
export function bandOf(lat: number): string {
  return BANDS[Math.min(19, Math.max(0, Math.floor((lat + 80) / 8)))]!;
}

/** The UTM zone, with the Norway (32V) and Svalbard (31X..37X) exceptions MGRS also uses. */
export function zoneOf({ lat, lon }: LatLon): number {
  const lon0 = lon >= 180 ? lon - 360 : lon;
  if (lat >= 56 && lat < 64 && lon0 >= 3 && lon0 < 12) return 32;
  if (lat >= 72 && lat < 84 && lon0 >= 0 && lon0 < 42) {
    if (lon0 < 9) return 31;
    if (lon0 < 21) return 33;
    if (lon0 < 33) return 35;
    return 37;
  }
  return Math.min(60, Math.floor((lon0 + 180) / 6) + 1);
}

export function toUtm(p: LatLon): Utm | null {
  if (p.lat < GRID_MIN_LAT || p.lat > GRID_MAX_LAT) return null;
  const zone = zoneOf(p);
  const band = bandOf(p.lat);
  // The hemisphere follows the band letter, so a reader of "31N ..." finds the same place.
  const [easting, northing] = proj4('EPSG:4326', utmDef(zone, band < 'N'), [p.lon, p.lat]) as [number, number];
  return { zone, band, easting, northing };
}

const bandRange = (band: string): [number, number] => {
  const i = BANDS.indexOf(band);
  return [-80 + i * 8, i === 19 ? 84 : -72 + i * 8];
};

/**
 * A UTM position back to degrees. The letter is read as the latitude band (what GPS units show);
 * N or S that does not fit its band is read as the hemisphere instead ("31N 500000 4000000").
 */
export function fromUtm(zone: number, letter: string, easting: number, northing: number): LatLon | { error: string } {
  if (zone < 1 || zone > 60) return { error: `UTM zone ${zone} does not exist (1 to 60)` };
  const L = letter.toUpperCase();
  const inverse = (south: boolean): LatLon => {
    const [lon, lat] = proj4(utmDef(zone, south), 'EPSG:4326', [easting, northing]) as [number, number];
    return { lat, lon };
  };
  const fits = (p: LatLon, band: string) => {
    const [lo, hi] = bandRange(band);
    // A band edge is exact in latitude; allow rounding of the written metres.
    return p.lat >= lo - 0.01 && p.lat <= hi + 0.01;
  };
  if (BANDS.includes(L)) {
    const p = inverse(L < 'N');
    if (fits(p, L)) return p;
  }
  if (L === 'N' || L === 'S') {
    const p = inverse(L === 'S');
    if (p.lat >= GRID_MIN_LAT && p.lat <= GRID_MAX_LAT) return p;
  }
  if (!BANDS.includes(L)) return { error: `"${letter}" is not a UTM latitude band (C to X, without I and O)` };
  return { error: `northing ${northing} does not fall in latitude band ${L} of zone ${zone}` };
}

/** MGRS at 1 m (5 + 5 digits). */
export function toMgrs(p: LatLon, digits = 5): string | null {
  if (p.lat < GRID_MIN_LAT || p.lat > GRID_MAX_LAT) return null;
  return mgrs.forward([p.lon, p.lat], digits);
}

/** The centre of an MGRS square; an error when the reference is not valid. */
export function fromMgrs(ref: string): LatLon | { error: string } {
  try {
    const [lon, lat] = mgrs.toPoint(ref.replace(/\s+/g, '').toUpperCase());
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) return { error: `"${ref}" is not a valid MGRS reference` };
    return { lat, lon };
  } catch (e) {
    return { error: `"${ref}" is not a valid MGRS reference (${(e as Error).message})` };
  }
}
