import { airports, apLat, apLon, cities, city, km } from '../contract/local-service/raw';

/**
 * The built-in catalog's questions of bench:postgis with their answers worked out from the
 * open-data packages as published (the contract tests' raw readers), not from the service's
 * catalog code: each answer's count and listed ids are checked against these.
 */
interface Item {
  id: string;
  lon: number;
  lat: number;
}

const NEAR_KM = 50;
const airportItems: Item[] = airports.map((a) => ({ id: a.id, lon: apLon(a), lat: apLat(a) }));
const cityItem = (c: (typeof cities)[number]): Item => ({ id: String(c.cityId), lon: c.loc.coordinates[0], lat: c.loc.coordinates[1] });
const madrid = city('Madrid', 'ES');
const lyon = city('Lyon', 'FR');
const paris = city('Paris', 'FR');
const from = (c: (typeof cities)[number]) => (i: Item) => km(i.lon, i.lat, c.loc.coordinates[0], c.loc.coordinates[1]);

export const CATALOG_QUESTIONS: { query: string; want: Item[] }[] = [
  { query: 'airports in France', want: airports.filter((a) => a.iso_country === 'FR').map((a) => ({ id: a.id, lon: apLon(a), lat: apLat(a) })) },
  { query: 'cities in Germany over 100000 people', want: cities.filter((c) => c.country === 'DE' && c.population > 100_000).map(cityItem) },
  { query: 'airports within 100 km of Madrid', want: airportItems.filter((i) => from(madrid)(i) <= 100) },
  { query: 'cities near Lyon', want: cities.map(cityItem).filter((i) => from(lyon)(i) <= NEAR_KM) },
];
export const CATALOG_FOLLOW_UP = 'sort by distance to Paris';

/**
 * Checks one answer and its follow-up: the count, every listed id among the wanted ones, and the
 * follow-up's first `limit` the nearest to Paris (by distance, so ties may list either).
 */
export function checkCatalogAnswer(
  what: string,
  question: (typeof CATALOG_QUESTIONS)[number],
  answer: { matched: number; first: string[]; next: string[] },
  limit: number,
): void {
  const { want } = question;
  if (answer.matched !== want.length) throw new Error(`${what}: "${question.query}" matched ${answer.matched}, the published data holds ${want.length}`);
  const byId = new Map(want.map((i) => [i.id, i]));
  for (const id of [...answer.first, ...answer.next])
    if (!byId.has(id)) throw new Error(`${what}: "${question.query}" listed ${id}, which the published data does not answer`);
  const toParis = from(paris);
  const nearest = want.map(toParis).sort((a, b) => a - b).slice(0, limit);
  const listed = answer.next.map((id) => toParis(byId.get(id)!));
  if (listed.length !== nearest.length || listed.some((d, k) => Math.abs(d - nearest[k]!) > 1e-6))
    throw new Error(`${what}: "${CATALOG_FOLLOW_UP}" listed ${listed.map((d) => d.toFixed(3)).join(', ')} km, the nearest are ${nearest.map((d) => d.toFixed(3)).join(', ')} km`);
}
