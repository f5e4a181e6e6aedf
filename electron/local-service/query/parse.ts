import type { Catalog, Kind } from '../catalog/catalog';
import { formatInt } from '../catalog/format';
import { normalizeName } from '../catalog/text';
import { AREA_WORDS, bboxAt, boxText } from './bbox';
import { createPlaceReader, type Place } from './places';
import { populationFilterAt, trailingPopulationFilter } from './filters';
import type { Measurement, Plan, Reference, Warning } from './plan';
import {
  DETERMINERS, isPlural, LARGE_WORDS, MEDIUM_WORDS, NEAR_KM, IN_CITY_KM, NOT_PLACES, numberAt as numberOf, SILENT,
  RULE_WORDS, SUBJECT_WORDS, tokenize, UNIT_KM, UPLOAD_NOUNS,
} from './words';

export { NEAR_KM, IN_CITY_KM, tokenize } from './words';

export interface ParseContext {
  catalog: Catalog;
  /** Request `coordinates`, by name. */
  coordinates: { name: string; latitude: number; longitude: number }[];
  /** Names of uploaded files (with extension). */
  fileNames: string[];
  /** Subject of the saved query when continuing one. */
  savedSubject?: Kind | null;
}

const fmt = formatInt;

export function parseQuery(query: string, ctx: ParseContext): Plan {
  const { catalog } = ctx;
  const t = tokenize(query);
  const plan: Plan = { subject: null, countries: [], unread: [], ignored: [], warnings: [] };
  const warn = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    plan.warnings.push({ code, message, ...extra } as Warning);
  const w = (i: number) => t[i]?.w ?? '';
  let pendingSize: boolean | undefined;

  const fileKeys = ctx.fileNames.flatMap((f) => {
    const base = normalizeName(f.replace(/\.[^.]+$/, ''));
    return base ? [base.split(' ')] : [];
  });
  const matchWords = (i: number, key: string[]) => key.length > 0 && key.every((k, n) => w(i + n) === k);

  /** A count for "top N": a positive whole number, else null. */
  function countAt(i: number): [number, number] | null {
    const num = numberAt(i, false);
    return num && Number.isInteger(num[0]) && num[0] >= 1 ? num : null;
  }

  const numberAt = (i: number, allowMultiplier: boolean) => numberOf(t, i, allowMultiplier);

  const { placeAt, placePoint } = createPlaceReader({ t, catalog, coordinates: ctx.coordinates, warn, unread: plan.unread });

  /** Countries or regions become country filters: [label] when p was one, else null. */
  function areaFilter(p: Place): string | null {
    if (p.type === 'country') {
      const r = catalog.countries.rows[p.idx]!;
      addCountry(r.cca2);
      return r.name;
    }
    if (p.type === 'region') {
      for (const c of p.countries) addCountry(c);
      return p.name;
    }
    return null;
  }

  /** Class phrase at i ("an airport", "my sites", "those"): [reference, tokens used]. */
  function classAt(i: number): [Reference, number] | null {
    classStart = i;
    let j = i;
    while (DETERMINERS.has(w(j))) j++;
    let large: boolean | undefined;
    if (LARGE_WORDS.has(w(j))) {
      large = true;
      j++;
    } else if (MEDIUM_WORDS.has(w(j))) {
      large = false;
      j++;
    }
    const kind = SUBJECT_WORDS[w(j)];
    if (kind) {
      const capital = w(j).startsWith('capital');
      const label = `${large === true ? 'large ' : large === false ? 'medium ' : ''}${capital ? 'capitals' : kind === 'city' ? 'cities' : kind + 's'}`;
      return [{ type: 'class', kind, large: kind === 'airport' ? large : undefined, capital: capital || undefined, label }, j - i + 1];
    }
    if (large !== undefined) return null;
    if (w(j) === 'my' || w(j) === 'our' || w(j) === 'uploaded') {
      if (UPLOAD_NOUNS.has(w(j + 1))) return [{ type: 'class', kind: 'upload', label: 'uploaded features' }, j - i + 2];
    }
    for (const key of fileKeys)
      if (matchWords(j, key)) return [{ type: 'class', kind: 'upload', label: 'uploaded features' }, j - i + key.length];
    if (ctx.savedSubject !== undefined && ['those', 'them', 'these', 'previous', 'earlier'].includes(w(j)))
      return [{ type: 'saved', label: 'the earlier results' }, j - i + 1 + (w(j + 1) === 'results' ? 1 : 0)];
    if (w(j) === 'these' && ctx.fileNames.length)
      return [{ type: 'class', kind: 'upload', label: 'uploaded features' }, j - i + 1];
    return null;
  }

  /**
   * A reference: a class of items or a named place. A country has no single point to measure
   * from, so it becomes a country filter ("near France" reads as "in France") and the reference
   * is null; the caller then sets no radius or distance order.
   */
  function referenceAt(i: number, phrase: string): [Reference | null, number] | null {
    const cls = classAt(i);
    if (cls) return withClassFilter(cls);
    let j = i;
    while (w(j) === 'the') j++;
    const p = placeAt(j, true);
    if (!p) {
      const unknown = unknownPlaceAt(j);
      if (!unknown) return null;
      return [null, j - i + unknown];
    }
    if (p.type === 'country' || p.type === 'region') {
      const area = areaFilter(p);
      warn('reading', `read "${phrase} ${area}" as "in ${area}": distances to a whole country or region are not measured`);
      return [null, j - i + p.len];
    }
    const pt = placePoint(p);
    return [{ type: 'points', points: [pt], label: pt.label }, j - i + p.len];
  }

  /**
   * A filter phrase belongs to the noun phrase it follows: "near a city over 1 million people"
   * filters the reference cities, not the subject.
   */
  function withClassFilter(cls: [Reference, number]): [Reference, number] {
    const [ref, len] = cls;
    const f = trailingPopulationFilter(t, classEnd(cls));
    if (!f) return cls;
    if (ref.type !== 'class' || (ref.kind !== 'city' && ref.kind !== 'country')) {
      warn('ignored', `population filters apply to cities and countries; "${t.slice(classEnd(cls), classEnd(cls) + f[1]).map((x) => x.raw).join(' ')}" ignored for ${ref.label}`);
      return [ref, len + f[1]];
    }
    const label = `${ref.label} ${populationText(f[0])}`;
    return [{ ...ref, popMin: f[0].min, popMax: f[0].max, label }, len + f[1]];
  }
  let classStart = 0;
  const classEnd = (cls: [Reference, number]) => classStart + cls[1];
  const populationText = (f: { min?: number; max?: number }) =>
    f.min !== undefined && f.max !== undefined
      ? `of ${fmt(f.min)} to ${fmt(f.max)} people`
      : f.min !== undefined
        ? `over ${fmt(f.min)} people`
        : `under ${fmt(f.max!)} people`;

  /**
   * Words after "in", "near" or "of" that name no known place ("in Atlantis"): kept as unread so
   * the answer is empty with a warning instead of every item. Returns tokens used, or 0.
   */
  function unknownPlaceAt(i: number): number {
    let j = i;
    while (t[j] && t[j]!.w !== ',' && !SILENT.has(w(j)) && !RULE_WORDS.has(w(j)) && !/^-?\d/.test(w(j)) && !UNIT_KM[w(j)]) j++;
    if (j === i || NOT_PLACES.has(w(i))) return 0;
    const said = t.slice(i, j).map((x) => x.raw).join(' ');
    plan.unread.push(said);
    warn('unknown_place', `"${said}" is not a place the catalog knows (countries, regions, cities and request coordinates); nothing was searched there`, { words: said });
    return j - i;
  }

  /**
   * "nearest airport" (one noun, singular) asks for the single nearest; "nearest airports" ranks
   * them all; "the 3 nearest" takes 3. The noun is the next subject word or the one before.
   */
  let subjectWordAt = -1;
  function singularNearest(i: number) {
    let j = i + 1;
    while (DETERMINERS.has(w(j)) || LARGE_WORDS.has(w(j)) || MEDIUM_WORDS.has(w(j)) || w(j) === 'my' || w(j) === 'our') j++;
    const noun = SUBJECT_WORDS[w(j)] || UPLOAD_NOUNS.has(w(j)) ? j : subjectWordAt;
    if (noun < 0) return;
    const said = t.slice(Math.min(i, noun), Math.max(i, noun) + 1).map((x) => x.raw).join(' ');
    if (isPlural(w(noun))) {
      warn('reading', `read "${said}" as every match ranked by distance; "the 3 nearest" takes the first 3`);
      return;
    }
    plan.top = 1;
    warn('reading', `read "${said}" as the single nearest; "nearest ${w(noun)}s" ranks them all, "the 3 nearest" takes 3`);
  }

  function addCountry(cca2: string) {
    if (!plan.countries.includes(cca2)) plan.countries.push(cca2);
  }
  function setSubject(kind: Kind, large?: boolean, capital?: boolean) {
    if (plan.subject === null) plan.subject = kind;
    else if (plan.subject !== kind) return false;
    if (large !== undefined) plan.large = large;
    if (capital) plan.capital = true;
    return true;
  }
  function setMeasurement(m: Measurement) {
    plan.measurement = m;
  }
  const distanceUnit = (i: number) => UNIT_KM[w(i)];

  /** "N km (of|from|around) REF" at i: tokens used, or 0. */
  function radiusAt(i: number): number {
    const num = numberAt(i, false);
    if (!num) return 0;
    const unit = distanceUnit(i + num[1]);
    if (unit === undefined) return 0;
    let j = i + num[1] + 1;
    if (['of', 'from', 'around', 'to', 'near'].includes(w(j))) j++;
    const said = t.slice(i, j).map((x) => x.raw).join(' ');
    const ref = referenceAt(j, `within ${said}`);
    if (!ref) {
      warn('unknown_place', `no place or class found after "${said}"; nothing was searched`);
      plan.unread.push(said);
      return j - i;
    }
    const radiusKm = num[0] * unit;
    if (ref[0]) plan.within = { reference: ref[0], radiusKm, said: { value: num[0], unit: t[i + num[1]]!.raw, km: radiusKm } };
    return j - i + ref[1];
  }

  const rules: ((i: number) => number)[] = [
    // measurement words
    (i) => (w(i) === 'how' && w(i + 1) === 'many' ? (setMeasurement('count'), 2) : 0),
    (i) => (w(i) === 'number' && w(i + 1) === 'of' ? (setMeasurement('count'), 2) : 0),
    (i) => (['count', 'counts', 'tally'].includes(w(i)) ? (setMeasurement('count'), 1) : 0),
    (i) => {
      if (w(i) !== 'per') return 0;
      if (['capita', 'person', 'inhabitant', 'head'].includes(w(i + 1))) return setMeasurement('per_capita'), 2;
      if (w(i + 1) === 'million' && ['people', 'inhabitants', 'residents', 'persons'].includes(w(i + 2)))
        return setMeasurement('per_capita'), 3;
      if (['area', 'km2', 'km²'].includes(w(i + 1))) return setMeasurement('per_area'), 2;
      if (['square', 'sq'].includes(w(i + 1)) && distanceUnit(i + 2) !== undefined) return setMeasurement('per_area'), 3;
      return 0;
    },
    (i) => (w(i) === 'density' ? (setMeasurement('per_area'), 1) : 0),
    (i) => {
      // "per country", "by country", "in each country", "for every country"
      let j = i;
      if (['in', 'for'].includes(w(j)) && ['each', 'every'].includes(w(j + 1))) j += 2;
      else if (['per', 'by', 'each', 'every'].includes(w(j))) j += 1;
      else return 0;
      if (w(j) !== 'country' && w(j) !== 'countries') return 0;
      plan.byCountry = true;
      return j - i + 1;
    },
    // distance clauses
    (i) => {
      if (w(i) !== 'within' && w(i) !== 'inside') return 0;
      const n = radiusAt(i + 1);
      return n ? n + 1 : 0;
    },
    (i) => {
      // "less than 10 km from X", "under 5 mi of X"
      let j = i;
      if (['less', 'fewer'].includes(w(j)) && w(j + 1) === 'than') j += 2;
      else if (['under', 'below'].includes(w(j))) j += 1;
      else return 0;
      const n = radiusAt(j);
      return n ? j - i + n : 0;
    },
    (i) => {
      let j = i;
      if (['near', 'around', 'nearby'].includes(w(j))) j += 1;
      else if (['close', 'next'].includes(w(j)) && w(j + 1) === 'to') j += 2;
      else return 0;
      const ref = referenceAt(j, t.slice(i, j).map((x) => x.raw).join(' '));
      if (!ref) return 0;
      if (!ref[0]) return j - i + ref[1];
      plan.within = { reference: ref[0], radiusKm: NEAR_KM };
      plan.order ??= 'distance';
      warn('reading', `read "${t.slice(i, j + ref[1]).map((x) => x.raw).join(' ')}" as within ${NEAR_KM} km, nearest first`);
      return j - i + ref[1];
    },
    (i) => {
      if (w(i) !== 'in' && w(i) !== 'inside') return 0;
      const p = placeAt(i + 1 + (w(i + 1) === 'the' ? 1 : 0), false);
      if (!p) {
        const skip = 1 + (w(i + 1) === 'the' ? 1 : 0);
        const n = /^\p{Lu}/u.test(t[i + skip]?.raw ?? '') ? unknownPlaceAt(i + skip) : 0;
        return n ? skip + n : 0;
      }
      const used = 1 + (w(i + 1) === 'the' ? 1 : 0) + p.len;
      if (p.type === 'country' || p.type === 'region') areaFilter(p);
      else {
        const pt = placePoint(p);
        plan.within = { reference: { type: 'points', points: [pt], label: pt.label }, radiusKm: IN_CITY_KM };
        warn('reading', `read "in ${pt.label}" as within ${IN_CITY_KM} km of its centre`);
      }
      return used;
    },
    (i) => {
      // "capital of France", "airports of Spain": only a country after "of" is a place.
      if (w(i) !== 'of') return 0;
      const p = placeAt(i + 1, false);
      if (!p || (p.type !== 'country' && p.type !== 'region')) return 0;
      areaFilter(p);
      return 1 + p.len;
    },
    // area
    (i) => {
      const b = bboxAt(t, i);
      if (!b) return 0;
      if ('error' in b) plan.invalid ??= `could not read the area: ${b.error}`;
      else {
        plan.bbox = b.box;
        warn('reading', `read an area of ${boxText(b.box)}`);
      }
      return b.len;
    },
    // order: "sort my sites by distance to Paris" reads like "my sites sorted by distance to Paris".
    (i) => (['sort', 'sorted', 'order', 'ordered', 'rank', 'ranked', 'arrange', 'arranged'].includes(w(i)) ? 1 : 0),
    (i) => {
      if (w(i) !== 'by') return 0;
      if (w(i + 1) === 'population' || w(i + 1) === 'size') return (plan.order = 'population_desc'), 2;
      if (w(i + 1) !== 'distance' && w(i + 1) !== 'proximity') return 0;
      let j = i + 2;
      if (['to', 'from'].includes(w(j))) j++;
      const ref = referenceAt(j, 'sort by distance to');
      plan.order = 'distance';
      if (ref?.[0]) plan.distanceRef = ref[0];
      return j - i + (ref ? ref[1] : 0);
    },
    (i) => {
      if (!['nearest', 'closest'].includes(w(i))) return 0;
      plan.order = 'distance';
      let j = i + 1;
      const num = countAt(j);
      if (num && distanceUnit(j + num[1]) === undefined) {
        plan.top = num[0];
        j += num[1];
      } else if (plan.top === undefined) singularNearest(i);
      return j - i;
    },
    (i) => {
      // "nearest to X", "closest to X" after the subject
      if (w(i) !== 'to' || plan.order !== 'distance' || plan.distanceRef) return 0;
      const ref = referenceAt(i + 1, 'nearest to');
      if (!ref) return 0;
      if (ref[0]) plan.distanceRef = ref[0];
      return 1 + ref[1];
    },
    (i) => {
      if (w(i) !== 'top') return 0;
      const num = countAt(i + 1);
      if (!num) return 0;
      plan.top = num[0];
      return 1 + num[1];
    },
    (i) => {
      if (['largest', 'biggest'].includes(w(i))) return (plan.order = 'population_desc'), 1;
      if (w(i) === 'most' && ['populous', 'populated'].includes(w(i + 1))) return (plan.order = 'population_desc'), 2;
      if (w(i) === 'smallest') return (plan.order = 'population_asc'), 1;
      if (w(i) === 'least' && ['populous', 'populated'].includes(w(i + 1))) return (plan.order = 'population_asc'), 2;
      return 0;
    },
    (i) => {
      // "5 largest", "10 biggest", "3 nearest"
      const num = countAt(i);
      if (!num) return 0;
      const next = w(i + num[1]);
      if (!['largest', 'biggest', 'smallest', 'nearest', 'closest'].includes(next)) return 0;
      plan.top = num[0];
      return num[1];
    },
    // population filters
    (i) => {
      const f = populationFilterAt(t, i);
      if (!f) return 0;
      if (f[0].min !== undefined) plan.popMin = f[0].min;
      if (f[0].max !== undefined) plan.popMax = f[0].max;
      return f[1];
    },
    // subject and class words
    (i) => {
      if (LARGE_WORDS.has(w(i)) || MEDIUM_WORDS.has(w(i))) {
        // "airports ... with large size": the size word may also follow its subject.
        if (plan.subject === 'airport') plan.large = LARGE_WORDS.has(w(i));
        else pendingSize = LARGE_WORDS.has(w(i));
        return 1;
      }
      return 0;
    },
    (i) => {
      const kind = SUBJECT_WORDS[w(i)];
      if (!kind) return 0;
      const capital = w(i).startsWith('capital');
      subjectWordAt = i;
      if (!setSubject(kind, kind === 'airport' ? pendingSize : undefined, capital)) {
        warn('ignored', `"${t[i]!.raw}" ignored: the question is already about ${plan.subject}s`);
      } else if (pendingSize !== undefined && kind !== 'airport') {
        warn('ignored', `size words apply to airports only; "${pendingSize ? 'large' : 'medium'}" ignored`);
      }
      pendingSize = undefined;
      return 1;
    },
    (i) => {
      const cls = classAt(i);
      if (!cls || cls[0].type === 'points') return 0;
      if (cls[0].type === 'saved') return cls[1];
      if (cls[0].type === 'class' && cls[0].kind === 'upload') {
        setSubject('upload');
        return cls[1];
      }
      return 0;
    },
    (i) => {
      const c = catalog.countryByDemonym.get(w(i));
      if (c === undefined) return 0;
      addCountry(catalog.countries.rows[c]!.cca2);
      return 1;
    },
    (i) => {
      // A bare country name ("airports France") or a named coordinate; bare words are not taken for cities.
      const p = placeAt(i, false, false);
      if (!p || p.type === 'city') return 0;
      if (p.type === 'coord') {
        plan.distanceRef = { type: 'points', points: [p.point], label: p.point.label };
        return p.len;
      }
      const name = areaFilter(p);
      if (!['of', 'in'].includes(w(i - 1))) warn('reading', `read "${name}" as "in ${name}"`);
      return p.len;
    },
  ];

  for (let i = 0; i < t.length; ) {
    let used = 0;
    for (const rule of rules) {
      used = rule(i);
      if (used) break;
    }
    if (used) {
      i += used;
      continue;
    }
    if (!SILENT.has(w(i))) plan.ignored.push(t[i]!.raw);
    i++;
  }
  if (pendingSize !== undefined) warn('ignored', `"${pendingSize ? 'large' : 'medium'}" named no airports; ignored`);
  // A box word left unread means an area was meant and not understood: never answer for everywhere.
  const areaWord = plan.ignored.find((x) => AREA_WORDS.has(x.toLowerCase()));
  if (areaWord && !plan.invalid && !plan.bbox)
    plan.invalid = `could not read the area after "${areaWord}"; write a box as "bbox west,south,east,north" or "between latitude 45.5 and 46 and longitude 4.5 and 5.5"`;
  if (plan.ignored.length) warn('ignored_words', `words not used: ${plan.ignored.join(', ')}`, { words: plan.ignored });
  return plan;
}
