import type { ComputeFeature } from '../../../shared/service/compute';
import type { Geometry } from '../../../shared/service/geojson';
import type { ImageryRecord } from '../../../shared/service/imagery';
import type { Observation } from '../../../shared/service/stream';

/** Deterministic pseudo-random numbers so failures reproduce. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const uuid = (r: () => number) =>
  'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => Math.floor(r() * 16).toString(16));

/** Points over Europe with full-precision coordinates, as the bench and tests share them. */
export function pointFeatures(n: number, seed = 1): ComputeFeature[] {
  const r = rng(seed);
  const out: ComputeFeature[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      type: 'Feature',
      id: `f-${i}`,
      geometry: { type: 'Point', coordinates: [-10 + r() * 40, 35 + r() * 25] },
      properties: {
        source_id: `osm:${i}`,
        name: `Place ${i}`,
        address: `${i} Main Street`,
        score: r(),
        distance_meters: Math.round(r() * 100000) / 10,
        source: { name: 'OpenStreetMap', url: `https://www.openstreetmap.org/node/${i}` },
        attributes: { rank: i % 100, height: r() * 50, kind: i % 2 ? 'tower' : 'mast' },
      },
    });
  }
  return out;
}

const ring = (cx: number, cy: number, d: number): [number, number][] => [
  [cx - d, cy - d],
  [cx + d, cy - d],
  [cx + d, cy + d],
  [cx - d, cy + d],
  [cx - d, cy - d],
];

/** Every geometry type except Point, for mixed-geometry layers. */
export function shapes(): Geometry[] {
  return [
    { type: 'Polygon', coordinates: [ring(13.4, 52.5, 0.01), ring(13.4, 52.5, 0.002).reverse()] },
    { type: 'MultiPoint', coordinates: [[2.3522219, 48.856614], [2.2944813, 48.8583701]] },
    { type: 'LineString', coordinates: [[-0.1275, 51.507222], [-0.1, 51.52], [-0.09, 51.53]] },
    { type: 'MultiLineString', coordinates: [[[12.4964, 41.9028], [12.5, 41.91]], [[12.51, 41.92], [12.52, 41.93], [12.53, 41.9]]] },
    { type: 'MultiPolygon', coordinates: [[ring(4.9, 52.37, 0.02)], [ring(5.1, 52.09, 0.015)]] },
    {
      type: 'GeometryCollection',
      geometries: [
        { type: 'Point', coordinates: [-3.7038, 40.4168] },
        { type: 'LineString', coordinates: [[-3.7, 40.41], [-3.69, 40.42]] },
      ],
    },
  ];
}

/** Compute features with mixed geometries, unicode text and attributes of mixed types. */
export function mixedFeatures(): ComputeFeature[] {
  return shapes().map((geometry, i) => ({
    type: 'Feature',
    id: `mix-${i}`,
    geometry,
    properties: {
      source_id: `src-${i}`,
      name: ['Zürich Hauptbahnhof', 'Łódź Fabryczna', '東京タワー', 'Café "Ñandú"', 'Αθήνα', 'Şişli, İstanbul'][i]!,
      address: `Straße ${i}, 日本`,
      score: i / 10,
      distance_meters: 100 * i + 0.5,
      source: { name: 'Uploaded', url: 'file://upload.csv' },
      attributes: {
        count: i,
        ratio: i + 0.25,
        // Mixed integer and real values become one REAL column.
        level: i % 2 ? i : i + 0.5,
        label: `ünïcødé ${i}`,
        open: i % 2 === 0,
        // Text in some rows and numbers in others: stays in the JSON column only.
        mixed: i % 2 ? 'x' : i,
        nested: { a: i },
        sparse: i === 3 ? 'only here' : null,
        // Keys that need quoting, or clash with fixed columns.
        'a.b': i * 2,
        "it's": `q${i}`,
        'höhe über NN': 400 + i,
        Name: `dup ${i}`,
        GEOM: i,
      },
    },
  }));
}

export function observations(n: number, seed = 2): Observation[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    type: 'Feature' as const,
    id: `obs-${i}`,
    geometry: { type: 'Point' as const, coordinates: [2 + r(), 48 + r()] },
    properties: {
      address: i % 3 ? `Rue ${i}` : null,
      date: '2024-05-0' + ((i % 9) + 1),
      year: '2024',
      month: '05',
      source: 'street-level',
      owner: i % 2 ? 'anna' : null,
      feature_name: 'crosswalk',
      image_url: `https://img.example/${i}.jpg`,
      is_video: i % 4 === 0 ? null : i % 2 === 0,
      video_id: null,
      video_url: null,
      duration: i % 2 ? 12.5 : null,
      interactive: i % 2 === 0,
    },
  }));
}

export function imagery(n: number, seed = 3): ImageryRecord[] {
  const r = rng(seed);
  const compass = ['North (N)', 'North-East (NE)', 'South-South-West (SSW)', 'West (W)'];
  return Array.from({ length: n }, (_, i) => ({
    id: uuid(r),
    address: `Calle ${i}, Madrid`,
    date: `March ${(i % 28) + 1}, 2023`,
    compass: compass[i % compass.length]!,
    interactive: i % 3 === 0,
    geometry: { type: 'Point' as const, coordinates: [-3.7 + r() / 10, 40.4 + r() / 10] },
    image: `https://img.example/pano/${i}.jpg`,
  }));
}
