import { randomUUID } from 'node:crypto';
import type { ComputeFeature, ComputeResponse } from '../../../shared/service/compute';
import type { StreamResponseSuccess } from '../../../shared/service/stream';
import type { ImageryResponseSuccess } from '../../../shared/service/imagery';

const KINDS = ['Cafe', 'Bakery', 'School', 'Pharmacy', 'Church', 'Park', 'Station', 'Hotel', 'Museum', 'Library'];
const STREETS = [
  'Rue de la Paix', 'Hauptstraße', 'Calle Mayor', 'Via Roma', 'High Street', 'Kungsgatan', 'Ulica Długa',
  'Avenida da Liberdade', 'Nørregade', 'Bahnhofstraße', 'Rue Victor Hugo', 'Station Road', 'Piazza Garibaldi',
];
const CITIES = ['Paris', 'Berlin', 'Madrid', 'Roma', 'London', 'Stockholm', 'Gdańsk', 'Lisboa', 'København', 'Zürich'];

/** Small deterministic PRNG so fixtures and benchmarks are repeatable. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

export interface ComputeFixture {
  body: ComputeResponse;
  raw: string;
}

/** A compute response of n point features clustered around a random European place. */
export function computeResponse(n: number, seed = 1, opts: { query?: string; ids?: string[] } = {}): ComputeFixture {
  const r = rng(seed);
  const cx = -8 + r() * 32;
  const cy = 38 + r() * 20;
  const features: ComputeFeature[] = [];
  for (let i = 0; i < n; i++) {
    const kind = KINDS[Math.floor(r() * KINDS.length)]!;
    const street = STREETS[Math.floor(r() * STREETS.length)]!;
    const city = CITIES[Math.floor(r() * CITIES.length)]!;
    features.push({
      type: 'Feature',
      id: opts.ids?.[i] ?? `node/${seed}-${i}`,
      geometry: { type: 'Point', coordinates: [+(cx + (r() - 0.5)).toFixed(6), +(cy + (r() - 0.5)).toFixed(6)] },
      properties: {
        source_id: `n${seed}${i}`,
        name: `${kind} ${street.split(' ').at(-1)} ${i}`,
        address: `${1 + Math.floor(r() * 200)} ${street}, ${city}`,
        score: +r().toFixed(4),
        distance_meters: Math.round(r() * 5000),
        source: { name: 'OpenStreetMap', url: `https://www.openstreetmap.org/node/${seed}${i}` },
        attributes: {},
      },
    });
  }
  const body: ComputeResponse = {
    id: randomUUID(),
    query: opts.query ?? `${KINDS[seed % KINDS.length]} near ${CITIES[seed % CITIES.length]}`,
    answer: { status: 'complete', content: `Found ${n} places.`, error: null },
    results: { type: 'FeatureCollection', numberMatched: n, numberReturned: n, features },
    warnings: [],
    usage: { meters: n / 100 },
  };
  return { body, raw: JSON.stringify(body) };
}

export function streamResponse(n: number, seed = 1): { body: StreamResponseSuccess; raw: string } {
  const r = rng(seed);
  const body: StreamResponseSuccess = {
    isSuccess: true,
    result_id: `res-${seed}`,
    data: {
      query: 'crosswalks',
      duration_ms: 120,
      geojson: {
        type: 'FeatureCollection',
        features: Array.from({ length: n }, (_, i) => ({
          type: 'Feature' as const,
          id: `obs-${seed}-${i}`,
          geometry: { type: 'Point' as const, coordinates: [2 + r(), 48 + r()] },
          properties: {
            address: `${i} Rue de Rivoli, Paris`,
            date: '2024-05-01T10:00:00Z',
            year: '2024',
            month: '05',
            source: 'dashcam',
            owner: null,
            feature_name: i % 2 ? 'crosswalk' : 'traffic light',
            image_url: `https://img.example/obs-${i}.jpg`,
            is_video: false,
            video_id: null,
            video_url: null,
            duration: null,
            interactive: false,
          },
        })),
      },
    },
    regions: [{ id: '42', name: 'Paris' }],
    year: '2024',
  };
  return { body, raw: JSON.stringify(body) };
}

export function imageryResponse(n: number, page = 1, pageTotal = 1): { body: ImageryResponseSuccess; raw: string } {
  const body: ImageryResponseSuccess = {
    isSuccess: true,
    page,
    pageTotal,
    result_id: `img-${page}`,
    region: 'Lisboa',
    region_id: null,
    data: Array.from({ length: n }, (_, i) => ({
      id: randomUUID(),
      address: `${i} Rua Augusta, Lisboa`,
      date: 'March 5, 2024',
      compass: 'North-East (NE)',
      interactive: i % 2 === 0,
      geometry: { type: 'Point' as const, coordinates: [-9.14 + i * 0.001, 38.72] },
      image: `https://img.example/${page}-${i}.jpg`,
    })),
  };
  return { body, raw: JSON.stringify(body) };
}
