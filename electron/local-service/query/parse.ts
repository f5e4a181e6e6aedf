import type { Catalog, Kind } from '../catalog/catalog';
import { formatInt } from '../catalog/format';
import { normalizeName } from '../catalog/text';
import type { Measurement, Plan, RefPoint, Reference, Warning } from './plan';

export interface ParseContext {
  catalog: Catalog;
  /** Request `coordinates`, by name. */
  coordinates: { name: string; latitude: number; longitude: number }[];
  /** Names of uploaded files (with extension). */
  fileNames: string[];
  /** Subject of the saved query when continuing one. */
  savedSubject?: Kind | null;
}

interface Token {
  raw: string;
  w: string;
}

/** Default radii, said in a warning whenever one is used. */
export const NEAR_KM = 50;
export const IN_CITY_KM = 20;

const UNIT_KM: Record<string, number> = {
  km: 1, kms: 1, kilometer: 1, kilometers: 1, kilometre: 1, kilometres: 1,
  mi: 1.609344, mile: 1.609344, miles: 1.609344,
  m: 0.001, meter: 0.001, meters: 0.001, metre: 0.001, metres: 0.001,
};
const MULTIPLIER: Record<string, number> = {
  k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, mio: 1e6, million: 1e6, millions: 1e6, b: 1e9, bn: 1e9, billion: 1e9,
};
const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20, fifty: 50, hundred: 100,
};
const SUBJECT_WORDS: Record<string, Kind> = {
  airport: 'airport', airports: 'airport', airfield: 'airport', airfields: 'airport', airstrip: 'airport',
  airstrips: 'airport', aerodrome: 'airport', aerodromes: 'airport',
  city: 'city', cities: 'city', town: 'city', towns: 'city', settlement: 'city', settlements: 'city',
  capital: 'city', capitals: 'city',
  country: 'country', countries: 'country', nation: 'country', nations: 'country',
};
const UPLOAD_NOUNS = new Set([
  'site', 'sites', 'point', 'points', 'location', 'locations', 'place', 'places', 'feature', 'features', 'data',
  'file', 'files', 'record', 'records', 'store', 'stores', 'asset', 'assets', 'facility', 'facilities', 'upload',
  'uploads', 'rows', 'stations', 'offices', 'properties', 'targets',
]);
const LARGE_WORDS = new Set(['large', 'major', 'big']);
const MEDIUM_WORDS = new Set(['medium', 'regional', 'mid', 'midsize']);
const DETERMINERS = new Set(['a', 'an', 'any', 'the', 'some', 'one', 'each', 'every']);
/** Words that carry no meaning for the reading: dropped silently. */
const SILENT = new Set([
  'a', 'an', 'the', 'of', 'which', 'what', 'whats', 'are', 'is', 'show', 'me', 'find', 'list', 'all', 'with', 'that',
  'there', 'and', 'for', 'please', 'give', 'where', 'do', 'does', 'have', 'has', 'to', 'from', 'than', 'get', 'return',
  'population', 'people', 'inhabitants', 'residents', 'persons', 'only', 'those', 'them', 'ones', 'these', 'results',
  'just', 'located', 'situated', 'lie', 'lies', 'any', 'by', 'in', 'world', 'on', 'map', 'can', 'you', 'i', 'see',
  'want', 'need', 'how', 'many', 'number', 'total', 'it', 'they', 'their', 'its', 'be', 'or', 'at', 'each', 'every',
  'now', 'then', 'also', 'whose', 'having', 'more', 'less', 'most', 'least', 'sized', 'size', ',',
]);

const NOT_PLACES = new Set([...SILENT, 'me', 'us', 'here', 'home', 'you', 'my', 'our', 'we', 'this', 'that']);

export function tokenize(query: string): Token[] {
  const text = query
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/['\u2019`]/g, '');
  const out: Token[] = [];
  for (const m of text.matchAll(/\d+(?:\.\d+)?|[\p{L}\p{N}]+|[,<>]/gu)) out.push({ raw: m[0], w: m[0].toLowerCase() });
  return out;
}

const fmt = formatInt;

export function parseQuery(query: string, ctx: ParseContext): Plan {
  const { catalog } = ctx;
  const t = tokenize(query);
  const plan: Plan = { subject: null, countries: [], ignored: [], warnings: [] };
  const warn = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    plan.warnings.push({ code, message, ...extra } as Warning);
  const w = (i: number) => t[i]?.w ?? '';
  let pendingSize: boolean | undefined;

  const coordNames = ctx.coordinates.map((c) => ({ c, key: normalizeName(c.name).split(' ').filter(Boolean) }));
  const fileKeys = ctx.fileNames.flatMap((f) => {
    const base = normalizeName(f.replace(/\.[^.]+$/, ''));
    return base ? [base.split(' ')] : [];
  });
  const phraseAt = (i: number, n: number) => {
    const parts: string[] = [];
    for (let k = 0; k < n; k++) {
      const tok = t[i + k];
      if (!tok || tok.w === ',') return null;
      parts.push(tok.w);
    }
    return parts.join(' ');
  };
  const matchWords = (i: number, key: string[]) => key.length > 0 && key.every((k, n) => w(i + n) === k);

  /** A count for "top N": a positive whole number, else null. */
  function countAt(i: number): [number, number] | null {
    const num = numberAt(i, false);
    return num && Number.isInteger(num[0]) && num[0] >= 1 ? num : null;
  }

  /** Number at i (digits or a number word) with an optional multiplier: [value, tokens used]. */
  function numberAt(i: number, allowMultiplier: boolean): [number, number] | null {
    let v: number;
    if (/^\d/.test(w(i))) v = Number(w(i));
    else if (NUMBER_WORDS[w(i)] !== undefined) v = NUMBER_WORDS[w(i)]!;
    else return null;
    if (allowMultiplier && MULTIPLIER[w(i + 1)] !== undefined) return [v * MULTIPLIER[w(i + 1)]!, 2];
    return [v, 1];
  }

  type Place =
    | { type: 'country'; idx: number; len: number }
    | { type: 'region'; name: string; countries: string[]; len: number }
    | { type: 'city'; idx: number; len: number }
    | { type: 'coord'; point: RefPoint; len: number };

  function cityPlace(i: number, n: number, candidates: number[]): Place {
    let list = candidates;
    let len = n;
    // "Paris, Texas" / "Paris, US": a qualifier after a comma narrows the candidates.
    if (w(i + n) === ',' && t[i + n + 1]) {
      for (let q = 3; q >= 1; q--) {
        const phrase = phraseAt(i + n + 1, q);
        if (!phrase) continue;
        const tok = t[i + n + 1]!;
        const cIdx =
          catalog.countryByName.get(phrase) ??
          (q === 1 && tok.raw === tok.raw.toUpperCase() ? catalog.countryByCode.get(tok.raw) : undefined);
        const cc = cIdx !== undefined ? catalog.countries.rows[cIdx]!.cca2 : null;
        const narrowed = list.filter(
          (c) =>
            (cc && catalog.cities.cols.country[c] === cc) ||
            (q === 1 && catalog.cities.cols.admin[c]!.toLowerCase() === phrase),
        );
        if (narrowed.length) {
          list = narrowed;
          len = n + 1 + q;
          break;
        }
      }
    }
    const best = list[0]!;
    if (list.length > 1) {
      const others = list
        .slice(1, 4)
        .map((c) => `${cityLabel(c)} (pop ${fmt(catalog.cities.pop[c]!)})`)
        .join(', ');
      warn(
        'ambiguous_place',
        `"${t.slice(i, i + n).map((x) => x.raw).join(' ')}" matched ${list.length} places; used ${cityLabel(best)} ` +
          `(pop ${fmt(catalog.cities.pop[best]!)}), the most populous; others: ${others}${list.length > 4 ? ', …' : ''}`,
        { candidates: list.length },
      );
    }
    return { type: 'city', idx: best, len };
  }

  function cityLabel(c: number): string {
    const cols = catalog.cities.cols;
    const country = cols.country[c]!;
    const admin = country === 'US' || country === 'CA' || country === 'AU' ? `${cols.admin[c]}, ` : '';
    const ci = catalog.countryByCode.get(country);
    return `${cols.name[c]}, ${admin}${ci !== undefined ? catalog.countries.rows[ci]!.name : country}`;
  }

  /** A named place at i: request coordinates first, then countries and cities (longest phrase wins). */
  function placeAt(i: number, preferCity: boolean, citiesToo = true): Place | null {
    for (const { c, key } of coordNames)
      if (matchWords(i, key))
        return { type: 'coord', point: { lon: c.longitude, lat: c.latitude, label: c.name }, len: key.length };
    for (let n = 4; n >= 1; n--) {
      const phrase = phraseAt(i, n);
      if (!phrase) continue;
      const tok = t[i]!;
      const region = catalog.regionByName.get(phrase);
      // "america" alone stays the country; regions are named in full ("North America", "Europe").
      if (region && !catalog.countryByName.has(phrase)) return { type: 'region', name: region.name, countries: region.countries, len: n };
      let country = catalog.countryByName.get(phrase);
      if (country === undefined && n === 1 && tok.raw.length <= 3 && /^[A-Z]+$/.test(tok.raw))
        country = catalog.countryByCode.get(tok.raw);
      // One-word cities named like everyday words ("Me", "Here") are not places in a question.
      const cities = !citiesToo || (n === 1 && NOT_PLACES.has(phrase)) ? undefined : catalog.cityByName.get(phrase);
      if (country !== undefined && cities?.length) {
        const big = cities[0]!;
        const other = preferCity ? catalog.countries.rows[country]!.name : cityLabel(big);
        if (catalog.cities.pop[big]! >= 50_000)
          warn('ambiguous_place', `"${phrase}" is both a country and a city; read as the ${preferCity ? 'city' : 'country'}, not ${other}`);
        if (preferCity) return cityPlace(i, n, cities);
        return { type: 'country', idx: country, len: n };
      }
      if (country !== undefined) return { type: 'country', idx: country, len: n };
      if (cities?.length) return cityPlace(i, n, cities);
    }
    return null;
  }

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

  function placePoint(p: Exclude<Place, { type: 'region' }>): RefPoint {
    if (p.type === 'coord') return p.point;
    if (p.type === 'city')
      return { lon: catalog.cities.lon[p.idx]!, lat: catalog.cities.lat[p.idx]!, label: cityLabel(p.idx) };
    const r = catalog.countries.rows[p.idx]!;
    return { lon: r.lon, lat: r.lat, label: r.name };
  }

  /** Class phrase at i ("an airport", "my sites", "those"): [reference, tokens used]. */
  function classAt(i: number): [Reference, number] | null {
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
    if (cls) return cls;
    let j = i;
    while (w(j) === 'the') j++;
    const p = placeAt(j, true);
    if (!p) return null;
    if (p.type === 'country' || p.type === 'region') {
      const area = areaFilter(p);
      warn('reading', `read "${phrase} ${area}" as "in ${area}": distances to a whole country or region are not measured`);
      return [null, j - i + p.len];
    }
    const pt = placePoint(p);
    return [{ type: 'points', points: [pt], label: pt.label }, j - i + p.len];
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
      warn('unknown_place', `no place or class found after "${said}"`);
      return j - i;
    }
    if (ref[0]) plan.within = { reference: ref[0], radiusKm: num[0] * unit };
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
      warn('reading', `read "${t.slice(i, j + ref[1]).map((x) => x.raw).join(' ')}" as within ${NEAR_KM} km`);
      return j - i + ref[1];
    },
    (i) => {
      if (w(i) !== 'in' && w(i) !== 'inside') return 0;
      const p = placeAt(i + 1 + (w(i + 1) === 'the' ? 1 : 0), false);
      if (!p) return 0;
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
    // order
    (i) => {
      if (!['sort', 'sorted', 'order', 'ordered', 'rank', 'ranked'].includes(w(i)) || w(i + 1) !== 'by') return 0;
      if (w(i + 2) === 'population' || w(i + 2) === 'size') return (plan.order = 'population_desc'), 3;
      if (w(i + 2) !== 'distance') return 0;
      let j = i + 3;
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
      }
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
      let j = i;
      let kind: 'min' | 'max' | 'range' | null = null;
      if (['over', 'above', 'exceeding', '>'].includes(w(j))) {
        kind = 'min';
        j++;
      } else if ((w(j) === 'more' || w(j) === 'greater') && w(j + 1) === 'than') {
        kind = 'min';
        j += 2;
      } else if (w(j) === 'at' && w(j + 1) === 'least') {
        kind = 'min';
        j += 2;
      } else if (['under', 'below', '<'].includes(w(j))) {
        kind = 'max';
        j++;
      } else if ((w(j) === 'less' || w(j) === 'fewer') && w(j + 1) === 'than') {
        kind = 'max';
        j += 2;
      } else if (w(j) === 'at' && w(j + 1) === 'most') {
        kind = 'max';
        j += 2;
      } else if (w(j) === 'between') {
        kind = 'range';
        j++;
      }
      if (!kind) return 0;
      const a = numberAt(j, true);
      if (!a) return 0;
      j += a[1];
      if (kind === 'range') {
        if (!['and', 'to', '-'].includes(w(j))) return 0;
        const b = numberAt(j + 1, true);
        if (!b) return 0;
        j += 1 + b[1];
        // "between 100k and 500k": a multiplier on the second figure applies to a bare first one.
        let lo = a[0];
        const hi = b[0];
        if (a[1] === 1 && b[1] === 2 && lo < hi / 1000) lo *= hi / numberAt(j - b[1], false)![0];
        plan.popMin = Math.min(lo, hi);
        plan.popMax = Math.max(lo, hi);
      } else if (kind === 'min') plan.popMin = a[0];
      else plan.popMax = a[0];
      return j - i;
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
  if (plan.ignored.length) warn('ignored_words', `words not used: ${plan.ignored.join(', ')}`, { words: plan.ignored });
  return plan;
}
