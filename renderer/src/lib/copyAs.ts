import { COORD_FORMATS, COORD_FORMAT_LABELS, formatCoord, type CoordFormat, type LatLon } from '../../../shared/coords';

export interface CopyChoice {
  format: CoordFormat;
  label: string;
  text: string;
  /** The notation set in Settings (listed first, and what Ctrl+C copies). */
  preferred: boolean;
}

/** A position written in every notation the app knows, the preferred one first. */
export function copyChoices(p: LatLon, preferred: CoordFormat): CopyChoice[] {
  const order = [preferred, ...COORD_FORMATS.filter((f) => f !== preferred)];
  return order.map((format) => ({ format, label: COORD_FORMAT_LABELS[format], text: formatCoord(p, format), preferred: format === preferred }));
}
