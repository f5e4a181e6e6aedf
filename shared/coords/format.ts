import type { LatLon } from './angles';
import { toMgrs, toUtm } from './grid';

export const COORD_FORMATS = ['dd', 'dms', 'ddm', 'utm', 'mgrs'] as const;
export type CoordFormat = (typeof COORD_FORMATS)[number];

export const COORD_FORMAT_LABELS: Record<CoordFormat, string> = {
  dd: 'Decimal degrees',
  dms: 'Degrees, minutes, seconds',
  ddm: 'Degrees, decimal minutes',
  utm: 'UTM',
  mgrs: 'MGRS',
};

/** Decimal degrees as typed into a question: "lat, lon", 6 decimals (about 0.1 m). */
export function formatDecimal({ lat, lon }: LatLon, decimals = 6): string {
  const f = (v: number) => (Object.is(+v.toFixed(decimals), -0) ? 0 : +v.toFixed(decimals)).toFixed(decimals);
  return `${f(lat)}, ${f(lon)}`;
}

/**
 * One angle as degrees and minutes (and seconds), rounded at the last written part with the carry
 * taken upwards, so 59.96" never prints as 60.0".
 */
function sexagesimal(value: number, withSeconds: boolean, decimals: number): [number, number, number] {
  const scale = 10 ** decimals;
  const unit = withSeconds ? 3600 : 60;
  const total = Math.round(Math.abs(value) * unit * scale);
  const perDeg = unit * scale;
  const deg = Math.floor(total / perDeg);
  const rest = total - deg * perDeg;
  if (!withSeconds) return [deg, rest / scale, 0];
  const min = Math.floor(rest / (60 * scale));
  return [deg, min, (rest - min * 60 * scale) / scale];
}

function angleText(value: number, pos: string, neg: string, withSeconds: boolean): string {
  const hem = value < 0 ? neg : pos;
  if (withSeconds) {
    const [d, m, s] = sexagesimal(value, true, 1);
    return `${d}°${String(m).padStart(2, '0')}'${s.toFixed(1).padStart(4, '0')}"${hem}`;
  }
  const [d, m] = sexagesimal(value, false, 3);
  return `${d}°${m.toFixed(3).padStart(6, '0')}'${hem}`;
}

/** A position in the chosen notation; UTM and MGRS outside 80°S..84°N fall back to decimal. */
export function formatCoord(p: LatLon, format: CoordFormat): string {
  switch (format) {
    case 'dd':
      return formatDecimal(p);
    case 'dms':
      return `${angleText(p.lat, 'N', 'S', true)} ${angleText(p.lon, 'E', 'W', true)}`;
    case 'ddm':
      return `${angleText(p.lat, 'N', 'S', false)} ${angleText(p.lon, 'E', 'W', false)}`;
    case 'utm': {
      const u = toUtm(p);
      return u ? `${u.zone}${u.band} ${Math.round(u.easting)} ${Math.round(u.northing)}` : formatDecimal(p);
    }
    case 'mgrs': {
      const m = toMgrs(p);
      // Grid zone, 100 km square, easting, northing: the way it is read aloud and printed on maps.
      return m ? m.replace(/^(\d{1,2}[A-Z])([A-Z]{2})(\d{5})(\d{5})$/, '$1 $2 $3 $4') : formatDecimal(p);
    }
  }
}
