import { bboxAt, boxText } from '../bbox';
import type { Reader } from '../reader';
import { IN_CITY_KM, NEAR_KM } from '../words';

/** "within 30 km of REF", "inside 5 mi of REF": a radius around a place or a class. */
export function withinRadius(r: Reader, i: number): number {
  const { w } = r;
  // "50 meters around REF", "in a radius of 2 km around REF", "in a 2 km radius of REF": a radius too.
  if (w(i) !== 'within' && w(i) !== 'inside') {
    let j = i;
    if (w(j) === 'in' && (w(j + 1) === 'a' || w(j + 1) === 'the')) j += 2;
    if (w(j) === 'radius' && w(j + 1) === 'of') j += 2;
    const dist = r.distanceAt(j);
    if (!dist) return 0;
    if (w(j + dist.len) === 'radius' && ['of', 'around', 'from'].includes(w(j + dist.len + 1))) {
      const n = r.relationAt(j, j + dist.len + 1, { hi: dist.said });
      return n ? j - i + n : 0;
    }
    if (w(j + dist.len) !== 'around' && j === i) return 0;
    const n = r.radiusAt(j);
    return n ? j - i + n : 0;
  }
  const n = r.radiusAt(i + 1);
  return n ? n + 1 : 0;
}

/** "less than 10 km from REF", "under 5 mi of REF", "at most 2 km from REF", "no more than 3 nmi from REF": a radius. */
export function underRadius(r: Reader, i: number): number {
  const { w } = r;
  let j = i;
  if (['less', 'fewer', 'closer', 'nearer'].includes(w(j)) && w(j + 1) === 'than') j += 2;
  else if (['under', 'below'].includes(w(j))) j += 1;
  else if (w(j) === 'at' && w(j + 1) === 'most') j += 2;
  else if ((w(j) === 'no' || w(j) === 'not') && ['more', 'further', 'farther'].includes(w(j + 1)) && w(j + 2) === 'than') j += 3;
  else return 0;
  const n = r.radiusAt(j);
  return n ? j - i + n : 0;
}

/**
 * "more than 100 km from REF", "beyond 5 nmi of REF", "over 20 mi away from REF", "further than
 * 3 km from REF" (d > X); "at least 2 km from REF" (d ≥ X); "not within 10 km of REF" (d > X).
 */
export function beyondRadius(r: Reader, i: number): number {
  const { w } = r;
  let j = i;
  let inclusive = false;
  if (['more', 'further', 'farther', 'greater'].includes(w(j)) && w(j + 1) === 'than') j += 2;
  else if (['beyond', 'over', 'outside'].includes(w(j))) j += 1;
  else if (w(j) === 'at' && w(j + 1) === 'least') {
    j += 2;
    inclusive = true;
  }
  else if (w(j) === 'not' && w(j + 1) === 'within') j += 2;
  else return 0;
  // "more than 2.5m inhabitants" is a population: a lower bound on distance needs its "from".
  const dist = r.distanceAt(j);
  if (!dist || !['from', 'of', 'away', 'around'].includes(w(j + dist.len))) return 0;
  const n = r.radiusAt(j, { inclusive });
  return n ? j - i + n : 0;
}

/** "between 1 and 2 km of REF", "between 500 m and 2 km from REF", "1 to 2 mi from REF": a ring, both ends included. */
export function betweenRadius(r: Reader, i: number): number {
  const { w } = r;
  const j = w(i) === 'between' ? i + 1 : i;
  const a = r.numberAt(j, false);
  if (!a) return 0;
  // The first figure with its own unit ("500 m and 2 km"), or sharing the second's ("1 and 2 km").
  const own = r.distanceAt(j);
  let k = j + (own ? own.len : a[1]);
  if (!['and', 'to', '-'].includes(w(k))) return 0;
  if (j === i && w(k) !== 'to') return 0;
  const hi = r.distanceAt(k + 1);
  if (!hi) return 0;
  k += 1 + hi.len;
  const perUnit = hi.said.km / hi.said.value;
  const lo = own ? own.said : { value: a[0], unit: hi.said.unit, km: a[0] * perUnit };
  if (lo.km > hi.said.km) return 0;
  const n = r.relationAt(i, k, { lo, hi: hi.said, inclusive: true });
  return n;
}

/** "near REF", "around REF", "close to REF": within the default radius, nearest first. */
export function near(r: Reader, i: number): number {
  const { w, plan } = r;
  let j = i;
  if (['near', 'around', 'nearby'].includes(w(j))) j += 1;
  else if (['close', 'next'].includes(w(j)) && w(j + 1) === 'to') j += 2;
  else return 0;
  const ref = r.referenceAt(j, r.said(i, j));
  if (!ref) return 0;
  if (!ref[0]) return j - i + ref[1];
  plan.within = { reference: ref[0], radiusKm: NEAR_KM };
  plan.order ??= 'distance';
  r.warn('reading', `read "${r.said(i, j + ref[1])}" as within ${NEAR_KM} km, nearest first`);
  return j - i + ref[1];
}

/** "in PLACE", "inside the PLACE": a country or region filter, or a radius around a city. */
export function inPlace(r: Reader, i: number): number {
  const { w, plan } = r;
  if (w(i) !== 'in' && w(i) !== 'inside') return 0;
  const lead = r.areaNameLeadAt(i + 1);
  const skip = 1 + (lead || (w(i + 1) === 'the' ? 1 : 0));
  const unknownBefore = plan.unread.length;
  const p = r.placeAt(i + skip, false);
  if (!p) {
    const n = /^\p{Lu}/u.test(r.t[i + skip]?.raw ?? '') ? r.unknownPlaceAt(i + skip) : 0;
    return n ? skip + n : 0;
  }
  if (p.type === 'nation' || p.type === 'region') r.areaFilter(p);
  else {
    const pt = r.placePoint(p);
    plan.within = { reference: { type: 'points', points: [pt], label: pt.label }, radiusKm: IN_CITY_KM };
    r.placeNotFound(unknownBefore, plan.within.reference);
    r.warn('reading', `read "in ${pt.label}" as within ${IN_CITY_KM} km of its centre`);
  }
  // "in Chennai city", "in Lyon municipality": the kind of place a name is, said after it.
  const head = r.placeHeadAt(i + skip + p.len);
  return skip + p.len + head;
}

/** "of COUNTRY" ("capital of France", "airports of Spain"): only a country or region after "of". */
export function ofCountry(r: Reader, i: number): number {
  if (r.w(i) !== 'of') return 0;
  const p = r.placeAt(i + 1, false);
  if (!p || (p.type !== 'nation' && p.type !== 'region')) return 0;
  r.areaFilter(p);
  return 1 + p.len;
}

/** A box: "bbox W,S,E,N", "between latitude A and B and longitude C and D", "45N to 46N, 4E to 5E". */
export function box(r: Reader, i: number): number {
  const b = bboxAt(r.t, i);
  if (!b) return 0;
  if ('error' in b) r.plan.invalid ??= `could not read the area: ${b.error}`;
  else {
    r.plan.bbox = b.box;
    r.warn('reading', `read an area of ${boxText(b.box)}`);
  }
  return b.len;
}

/** A demonym ("French airports"): a country filter. */
export function demonym(r: Reader, i: number): number {
  const c = r.catalog.countryByDemonym.get(r.w(i));
  if (c === undefined) return 0;
  r.addCountry(r.catalog.countries.rows[c]!.cca2);
  return 1;
}

/** A bare country name ("airports France") or a named request coordinate; bare words are not taken for cities. */
export function barePlace(r: Reader, i: number): number {
  const p = r.placeAt(i, false, false);
  if (!p || p.type === 'locality') return 0;
  if (p.type === 'coord') {
    r.plan.distanceRef = { type: 'points', points: [p.point], label: p.point.label };
    return p.len;
  }
  const name = r.areaFilter(p);
  if (!['of', 'in'].includes(r.w(i - 1))) r.warn('reading', `read "${name}" as "in ${name}"`);
  return p.len;
}
