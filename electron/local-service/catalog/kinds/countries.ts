import type { KindEntry } from './entry';

/** Countries of world-countries with Natural Earth outlines and country-json populations. */
export const countries: KindEntry = {
  name: 'country',
  code: 2,
  label: { one: 'country', many: 'countries' },
  nouns: [{ one: ['country', 'nation'], many: ['countries', 'nations'] }],
  source: {
    name: 'Natural Earth, mledoze/countries, country-json',
    licence: 'ODbL 1.0 (mledoze/countries); Natural Earth public domain; country-json MIT',
    url: 'https://www.naturalearthdata.com/',
    file: 'countries.json.gz',
    layout: 'rows',
  },
  id: { prefix: 'country:', column: 'cca3' },
  columns: { lon: 'lon', lat: 'lat', name: 'name', country: 'cca2', population: 'population', geometry: 'geometry' },
  address: ['name'],
  properties: [
    { name: 'country', column: 'cca2' },
    { name: 'population', column: 'population' },
    { name: 'area_km2', column: 'area' },
    { name: 'capital', column: 'capital' },
  ],
  score: { population: true },
};
