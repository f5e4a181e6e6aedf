import type { Catalog } from '../catalog/catalog';
import { formatNumber } from '../catalog/format';
import type { UploadSet } from '../uploads';
import type { Execution, Item } from './item';
import { nameOf } from './features';
import { CompactItems } from './item-list';
import { originSentence } from './origin';
import type { SaidDistance } from './units';
import { itemDistanceText, radiusText } from './units';

const fmt = formatNumber;

/**
 * The written answer: a short, fixed-template summary of the results (no language model).
 * Deterministic so tests can assert on it.
 */
export function writeAnswer(ex: Execution, catalog: Catalog, uploads: UploadSet, said?: SaidDistance): string {
  const n = ex.items.length;
  const parts: string[] = [];
  const name = (x: Item) => nameOf(x, ex, catalog, uploads);
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
  if (ex.layers?.perPolygon) {
    const top = ex.items.slice(0, 5).map((x) => `${name(x)} ${fmt(x.count ?? 0)}`);
    // "per district" as the question said it; the polygons counted are numbered, not pluralised.
    return `${fmt(ex.measurement?.value ?? 0)} "${ex.layers.label}" features counted ${ex.measurement?.scope ?? 'per area'} (${fmt(n)} ${n === 1 ? 'polygon' : 'polygons'}): ${top.join(', ')}${n > 5 ? ', …' : ''}.`;
  }
  const dist = (x: Item) => (x.d !== undefined ? itemDistanceText(x.d / 1000, said) : null);
  // Layer features are said in the question's words ("pharmacies"); a kind by its label.
  const label = ex.layers ? null : catalog.kinds.label(ex.subject);
  const plural = (k: number) => (!label ? `"${ex.layers!.label}" features` : k === 1 ? label.one : label.many);
  const where = ex.radiusKm !== undefined && ex.reference ? ` within ${radiusText(ex.radiusKm, said)} of ${ex.reference.label}` : '';
  const first = ex.items.at(0);
  if (ex.nearestFirst && first && dist(first) !== null) {
    // Say what was found: the nearest, its distance, and of how many.
    const from = ex.reference && !where ? ` to ${ex.reference.label}` : '';
    // Only the nearest were read from an index: how many match in all is not known, so not said.
    const of = ex.matchedUnknown ? `the ${plural(2)}` : `${fmt(ex.matched)} ${plural(ex.matched)}`;
    parts.push(`The nearest of ${of}${where}${from} is ${name(first)}, ${dist(first)}.`);
    if (n > 1) {
      const next = ex.items.slice(1, 3).map((x) => `${name(x)} (${dist(x)})`);
      parts.push(`Then ${next.join('; ')}${n > 3 ? `; ${fmt(n)} listed` : ''}.`);
    }
  } else {
    // Every match is counted, the top N cut aside; the first are named.
    const count = ex.matched;
    parts.push(`${fmt(count)} ${plural(count)} matched${where}.`);
    if (n) {
      const names = ex.items.slice(0, 3).map((x) => `${name(x)}${dist(x) ? ` (${dist(x)})` : ''}`);
      parts.push(`${n > 3 ? 'First' : 'They are'}: ${names.join('; ')}.`);
    }
  }
  const origin = originSentence(ex.reference, ex.items instanceof CompactItems ? ex.items.hasDistances : ex.items.some((x) => x.d !== undefined));
  if (origin) parts.push(origin);
  // Uploaded rows held compactly are no layer's features.
  const hits = ex.items instanceof CompactItems ? [] : [...ex.items];
  const sources = [...new Set(hits.flatMap((x) => (x.hit ? [x.hit.layer.licence ? `${x.hit.layer.name} (${x.hit.layer.licence})` : x.hit.layer.name] : [])))];
  if (sources.length) parts.push(`Source: ${sources.join(', ')}.`);
  const m = ex.measurement;
  if (m) {
    if (m.value === null) parts.push(`${m.kind.replace('_', ' ')} could not be computed.`);
    else if (m.kind === 'count') parts.push(`Count: ${fmt(m.value)}.`);
    else parts.push(`${m.kind === 'per_capita' ? 'Per capita' : 'Per area'}: ${fmt(m.value)} ${m.unit}${m.scope ? ` (${m.scope})` : ''}.`);
  }
  return parts.join(' ');
}
