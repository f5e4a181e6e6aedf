import { formatInt, formatNumber } from '../catalog/format';

/** A distance as the question wrote it ("300 miles"), with its value in km. */
export interface SaidDistance {
  value: number;
  unit: string;
  km: number;
}

/** Units people think in metric already: no km figure added after them. */
const METRIC = new Set(['km', 'kms', 'kilometer', 'kilometers', 'kilometre', 'kilometres', 'm', 'meter', 'meters', 'metre', 'metres']);

/** A distance rounded the way people say it: "483 km", "4.2 km", "350 m". */
export function kmText(km: number): string {
  if (km >= 10) return `${formatInt(Math.round(km))} km`;
  if (km >= 1) return `${formatNumber(Math.round(km * 10) / 10)} km`;
  return `${formatInt(Math.round(km * 1000))} m`;
}

/** The radius in the user's own unit, with km after other units: "300 miles (483 km)". */
export function radiusText(km: number, said?: SaidDistance): string {
  if (!said) return kmText(km);
  const own = `${formatNumber(said.value)} ${said.unit}`;
  return METRIC.has(said.unit.toLowerCase()) ? own : `${own} (${kmText(km)})`;
}

/** An item's distance in the unit of the question: "12 km", or "301 mi / 484 km" after a question in miles. */
export function itemDistanceText(km: number, said?: SaidDistance): string {
  if (!said || METRIC.has(said.unit.toLowerCase())) return kmText(km);
  const perUnit = said.km / said.value;
  return `${formatNumber(Math.round((km / perUnit) * 10) / 10)} ${said.unit} / ${kmText(km)}`;
}
