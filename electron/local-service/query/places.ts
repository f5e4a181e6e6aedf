import type { Catalog } from '../catalog/catalog';
import { formatInt } from '../catalog/format';
import { normalizeName } from '../catalog/text';
import type { RefPoint, Warning } from './plan';
import { NOT_PLACES, type Token } from './words';

const fmt = formatInt;

export type Place =
  | { type: 'nation'; idx: number; len: number }
  | { type: 'region'; name: string; countries: string[]; len: number }
  | { type: 'locality'; idx: number; len: number }
  | { type: 'coord'; point: RefPoint; len: number };

export interface PlaceReaderInput {
  t: Token[];
  catalog: Catalog;
  /** Request `coordinates`, by name. */
  coordinates: { name: string; latitude: number; longitude: number }[];
  warn: (code: Warning['code'], message: string, extra?: Record<string, unknown>) => void;
  /** Where place names that name no known place are kept (the answer is then empty). */
  unread: string[];
}

/**
 * Reading place names in a question: request coordinate names, countries and regions, cities by
 * name or alternate name with a country or division after them choosing among namesakes.
 */
export function createPlaceReader({ t, catalog, coordinates, warn, unread }: PlaceReaderInput) {
  const w = (i: number) => t[i]?.w ?? '';
  const coordNames = coordinates.map((c) => ({ c, key: normalizeName(c.name).split(' ').filter(Boolean) }));
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
  // Place names come from the gazetteer kinds; their words say which one a name was read as.
  const cityWord = catalog.cities.entry.label.one;
  const countryWord = catalog.countries.entry.label.one;
  const both = `a ${countryWord} and a ${cityWord}`;

  /** Candidates in the country or first-level division a qualifier phrase names, else null. */
  function qualified(list: number[], at: number, q: number): number[] | null {
    const phrase = phraseAt(at, q);
    if (!phrase) return null;
    const tok = t[at]!;
    const cIdx =
      catalog.countryByName.get(phrase) ??
      (q === 1 && tok.raw === tok.raw.toUpperCase() ? catalog.countryByCode.get(tok.raw) : undefined);
    const cc = cIdx !== undefined ? catalog.countries.rows[cIdx]!.cca2 : null;
    const admins = catalog.adminByName.get(phrase) ?? [];
    if (!cc && !admins.length && !(q === 1 && /^[A-Z0-9]{1,3}$/.test(tok.raw))) return null;
    const cols = catalog.cities.cols;
    return list.filter(
      (c) =>
        (cc && cols.country[c] === cc) ||
        admins.some((a) => a.country === cols.country[c] && a.code === cols.admin[c]) ||
        (q === 1 && cols.admin[c]!.toLowerCase() === phrase),
    );
  }

  function cityPlace(i: number, n: number, candidates: number[]): Place {
    let list = candidates;
    let len = n;
    // "Paris, Texas", "Paris, US", "Geneva Switzerland": a country or division after the name chooses.
    const at = w(i + n) === ',' ? i + n + 1 : i + n;
    for (let q = 3; q >= 1 && t[at]; q--) {
      const narrowed = qualified(list, at, q);
      if (!narrowed) continue;
      if (narrowed.length) {
        list = narrowed;
        len = at - i + q;
        break;
      }
      // The qualifier names a country or division holding no place of that name.
      if (at > i + n) {
        const said = t.slice(i, at + q).map((x) => x.raw).join(' ').replace(' , ', ', ');
        warn('unknown_place', `no place called "${t.slice(i, i + n).map((x) => x.raw).join(' ')}" in ${t.slice(at, at + q).map((x) => x.raw).join(' ')}`);
        unread.push(said);
        return { type: 'locality', idx: list[0]!, len: at - i + q };
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
          `(pop ${fmt(catalog.cities.pop[best]!)}), the most important by population and seat of government; ` +
          `others: ${others}${list.length > 4 ? ', …' : ''}; name the country to choose ("${t[i]!.raw}, <country>")`,
        { candidates: list.length, used: cityLabel(best), others: list.slice(1, 4).map(cityLabel) },
      );
    }
    return { type: 'locality', idx: best, len };
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
        return { type: 'coord', point: { lon: c.longitude, lat: c.latitude, label: c.name, site: true }, len: key.length };
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
          warn('ambiguous_place', `"${phrase}" is both ${both}; read as the ${preferCity ? cityWord : countryWord}, not ${other}`);
        if (preferCity) return cityPlace(i, n, cities);
        return { type: 'nation', idx: country, len: n };
      }
      if (country !== undefined) return { type: 'nation', idx: country, len: n };
      if (cities?.length) return cityPlace(i, n, cities);
    }
    return null;
  }

  function placePoint(p: Exclude<Place, { type: 'region' }>): RefPoint {
    if (p.type === 'coord') return p.point;
    if (p.type === 'locality')
      return { lon: catalog.cities.lon[p.idx]!, lat: catalog.cities.lat[p.idx]!, label: cityLabel(p.idx) };
    const r = catalog.countries.rows[p.idx]!;
    return { lon: r.lon, lat: r.lat, label: r.name };
  }

  return { placeAt, placePoint, cityLabel };
}
