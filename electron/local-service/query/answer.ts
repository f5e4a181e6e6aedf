import type { Catalog } from '../catalog/catalog';
import { formatNumber } from '../catalog/format';
import type { UploadFeature } from '../uploads';
import type { Execution } from './execute';
import { toFeature } from './features';

const LABEL = { city: 'cities', airport: 'airports', country: 'countries', upload: 'uploaded features' } as const;
const fmt = formatNumber;

/**
 * The written answer: a short, fixed-template summary of the results (no language model).
 * Deterministic so tests can assert on it.
 */
export function writeAnswer(ex: Execution, catalog: Catalog, uploads: UploadFeature[]): string {
  const n = ex.items.length;
  const parts: string[] = [];
  if (ex.aggregated) {
    const m = ex.measurement?.kind ?? 'count';
    const top = ex.items.slice(0, 5).map((x) => {
      const name = catalog.countries.rows[x.i]!.name;
      const v = x.a?.[m];
      return `${name} ${v === null || v === undefined ? 'n/a' : fmt(v)}`;
    });
    parts.push(`${n} ${n === 1 ? 'country has' : 'countries have'} matches; ${m.replace('_', ' ')} by country: ${top.join(', ')}${n > 5 ? ', …' : ''}.`);
    return parts.join(' ');
  }
  const where = ex.radiusKm !== undefined && ex.reference ? ` within ${fmt(ex.radiusKm)} km of ${ex.reference.label}` : '';
  parts.push(`${fmt(n)} ${n === 1 ? LABEL[ex.subject].replace(/ies$/, 'y').replace(/s$/, '') : LABEL[ex.subject]} matched${where}.`);
  if (n) {
    const names = ex.items.slice(0, 3).map((x) => {
      const f = toFeature(x, ex, catalog, uploads);
      const d = x.d !== undefined ? ` (${fmt(Math.round(x.d / 100) / 10)} km)` : '';
      return `${f.properties.name}${d}`;
    });
    parts.push(`${n > 3 ? 'First' : 'They are'}: ${names.join('; ')}.`);
  }
  const m = ex.measurement;
  if (m) {
    if (m.value === null) parts.push(`${m.kind.replace('_', ' ')} could not be computed.`);
    else if (m.kind === 'count') parts.push(`Count: ${fmt(m.value)}.`);
    else parts.push(`${m.kind === 'per_capita' ? 'Per capita' : 'Per area'}: ${fmt(m.value)} ${m.unit}${m.scope ? ` (${m.scope})` : ''}.`);
  }
  return parts.join(' ');
}
