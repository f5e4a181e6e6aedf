import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { Cache } from '../../electron/cache';
import { createMemoryLogger } from '../../electron/ground/logger';
import { createServiceLayers, type ServiceLayers } from '../../electron/local-service/layers/registry';
import { asAsyncLayerStore } from '../../electron/local-service/layers/store/async-layer-store';
import type { EmbeddedLayerStore } from '../../electron/local-service/layers/store/layer-store';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import { packLayers } from '../../electron/root/pack-layers';
import { createPackService, type PackService } from '../../electron/fieldkit/pack/service';
import type { FetchTile } from '../../electron/fieldkit/pack/write';
import type { PackProgressEvent } from '../../shared/rpc/methods/pack';
import type { ComputeResponse } from '../../shared/service/compute';
import type { ImageryResponse } from '../../shared/service/imagery';
import type { StreamResponse } from '../../shared/service/stream';
import type { FaceBlur } from '../../electron/fieldkit/privacy';

/** The packed area of the fixtures: one degree square in Germany. */
export const AREA: [number, number, number, number] = [10, 50, 11, 51];
export const T0 = Date.UTC(2026, 2, 1);
const HOUR = 3_600_000;

export const inArea = ([x, y]: number[]) => x! >= AREA[0] && x! <= AREA[2] && y! >= AREA[1] && y! <= AREA[3];

export interface AppSide {
  dir: string;
  cache: Cache;
  store: EmbeddedLayerStore;
  layers: ServiceLayers;
  close(): void;
}

/** A data folder as the app keeps it: the cache and the data layers' store. */
export function openSide(dir: string): AppSide {
  mkdirSync(dir, { recursive: true });
  const cache = Cache.open(join(dir, 'cache.db'));
  const store = openSqliteLayerStore({ dataDir: join(dir, 'local-service') });
  const async = asAsyncLayerStore(store);
  const layers = createServiceLayers({ store: () => async, tempDir: join(dir, 'tmp') });
  return {
    dir,
    cache,
    store,
    layers,
    close() {
      cache.close();
      store.close();
    },
  };
}

export function computeBody(query: string, points: [number, number][], extra: Record<string, unknown> = {}): ComputeResponse {
  return {
    id: randomUUID(),
    query,
    answer: { status: 'complete', content: `Found ${points.length} ${query}.`, error: null },
    results: {
      type: 'FeatureCollection',
      numberMatched: points.length,
      numberReturned: points.length,
      features: points.map((p, i) => ({
        type: 'Feature',
        id: `node/${query.replace(/\W+/g, '-')}-${i}`,
        geometry: { type: 'Point', coordinates: p },
        properties: { name: `${query} ${i}`, address: `${i} Hauptstraße`, score: i / 100, source: { name: 'test', url: null }, attributes: { floor: i }, ...extra },
      })),
    },
    warnings: [],
    usage: { meters: points.length / 10 },
  } as unknown as ComputeResponse;
}

const grid = (n: number, x0: number, y0: number, step: number): [number, number][] =>
  Array.from({ length: n }, (_, i) => [+(x0 + (i % 10) * step).toFixed(6), +(y0 + Math.floor(i / 10) * step).toFixed(6)]);

/** A JPEG-like blob of about `size` bytes: a real JPEG header, then noise. */
export function jpegLike(size: number): Buffer {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
  return Buffer.concat([head, randomBytes(size - head.length - 2), Buffer.from([0xff, 0xd9])]);
}

/** A real 256 px JPEG tile, as a tile server sends. */
export function tileImage(shade: number): Buffer {
  const data = Buffer.alloc(256 * 256 * 4, shade);
  return Buffer.from(jpeg.encode({ data, width: 256, height: 256 }, 80).data);
}

export interface SourceIds {
  inside: number;
  outside: number;
  mixed: number;
  rerun: number;
  imagery: number;
  stream: number;
  failed: number;
  early: number;
  mediaInside: string[];
  mediaElsewhere: string;
}

/**
 * A cache with questions inside, across and outside AREA, a re-run with an upload, imagery and
 * street-level results with their media, a failed request and one asked long before; and a
 * data layer with features inside, across and outside.
 */
export async function fillSource(side: AppSide): Promise<SourceIds> {
  const c = side.cache;
  const meta = (query: string, hoursAfter: number, more: Record<string, unknown> = {}) => ({
    profileId: 'local',
    request: { query },
    startedAt: T0 + hoursAfter * HOUR,
    finishedAt: T0 + hoursAfter * HOUR + 850,
    ...more,
  });
  const store = (query: string, h: number, points: [number, number][], more: Record<string, unknown> = {}) => {
    const body = computeBody(query, points);
    return c.storeCompute(meta(query, h, more), body, Buffer.from(JSON.stringify(body)));
  };
  const inside = store('cafes in Fulda', 1, grid(20, 10.1, 50.1, 0.05));
  const outside = store('schools in Prague', 2, grid(10, 14.3, 50.0, 0.01));
  const mixed = store('rivers', 3, [...grid(5, 10.9, 50.5, 0.01), ...grid(5, 11.5, 50.5, 0.01)]);
  const rerun = store('cafes in Fulda', 4, grid(22, 10.1, 50.1, 0.05), {
    rerunOf: inside,
    uploads: [{ field: 'files', name: 'area.geojson', contentType: 'application/geo+json', content: Buffer.from('{"type":"FeatureCollection","features":[]}') }],
  });
  const early = store('cafes in Fulda', -24 * 40, grid(3, 10.2, 50.2, 0.05));

  const mediaInside: string[] = [];
  const imagery = {
    isSuccess: true,
    page: 1,
    pageTotal: 1,
    result_id: 'img-1',
    region: 'Fulda',
    region_id: null,
    data: Array.from({ length: 6 }, (_, i) => ({
      id: randomUUID(),
      address: `${i} Marktplatz, Fulda`,
      date: 'March 5, 2026',
      compass: 'North-East (NE)',
      interactive: i % 2 === 0,
      geometry: { type: 'Point', coordinates: [10.6 + i * 0.01, 50.55] },
      image: `https://img.example/fulda-${i}.jpg`,
    })),
  } as unknown as ImageryResponse;
  const imageryId = c.storeImagery(meta('market square', 5), imagery, JSON.stringify(imagery));
  for (let i = 0; i < 6; i++) {
    const url = `https://img.example/fulda-${i}.jpg`;
    // Two were never viewed, so the cache has no bytes for them.
    if (i < 4) c.putMedia(url, 'image/jpeg', jpegLike(2000 + i * 100), T0 + i);
    if (i < 4) mediaInside.push(url);
  }
  const stream = {
    isSuccess: true,
    result_id: 'obs-1',
    data: {
      query: 'crosswalks',
      duration_ms: 90,
      geojson: {
        type: 'FeatureCollection',
        features: Array.from({ length: 3 }, (_, i) => ({
          type: 'Feature',
          id: `obs-${i}`,
          geometry: { type: 'Point', coordinates: [10.3, 50.3 + i * 0.01] },
          properties: {
            address: `${i} Bahnhofstraße`,
            date: '2026-03-01T10:00:00Z',
            year: '2026',
            month: '03',
            source: 'dashcam',
            owner: null,
            feature_name: 'crosswalk',
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
    year: '2026',
  } as unknown as StreamResponse;
  const streamId = c.storeStream(meta('crosswalks', 6), stream, JSON.stringify(stream));
  c.putMedia('https://img.example/obs-0.jpg', 'image/jpeg', jpegLike(1500), T0 + 10);
  mediaInside.push('https://img.example/obs-0.jpg');
  const mediaElsewhere = 'https://img.example/prague.jpg';
  c.putMedia(mediaElsewhere, 'image/jpeg', jpegLike(1000), T0);
  const failed = c.storeError('compute', meta('broken question', 7), { code: 'HTTP', message: 'Bad gateway', status: 502 });

  const w = side.store.create({ name: 'roads', sourceFile: '/data/roads.geojson', format: 'geojson', licence: 'ODbL', sourceText: 'roads.geojson (ODbL)' });
  w.add([
    { sourceId: 'r1', geometry: { type: 'Point', coordinates: [10.5, 50.5] }, properties: { highway: 'bus_stop', name: 'Dom' } },
    { sourceId: 'r2', geometry: { type: 'Point', coordinates: [12.5, 50.5] }, properties: { highway: 'bus_stop', name: 'Far' } },
    { sourceId: 'r3', geometry: { type: 'LineString', coordinates: [[10.5, 50.5], [11.5, 50.5]] }, properties: { highway: 'primary', lanes: 2 } },
    {
      sourceId: 'r4',
      geometry: { type: 'Polygon', coordinates: [[[10.8, 50.8], [11.2, 50.8], [11.2, 51.2], [10.8, 51.2], [10.8, 50.8]]] },
      properties: { landuse: 'forest' },
    },
  ]);
  side.layers.announce({ type: 'added', layer: w.commit([]) });
  return { inside, outside, mixed, rerun, imagery: imageryId, stream: streamId, failed, early, mediaInside, mediaElsewhere };
}

/** Images of the fixture's results never viewed: these two the fake service still serves, the others it answers 404. */
export const FETCHABLE = ['https://img.example/fulda-4.jpg', 'https://img.example/obs-1.jpg'];
export const UNFETCHABLE = ['https://img.example/fulda-5.jpg', 'https://img.example/obs-2.jpg'];

export interface Harness {
  service: PackService;
  events: PackProgressEvent[];
  tiles: { z: number; x: number; y: number }[];
  fetchedMedia: string[];
  online: { value: boolean };
}

/** The pack service over one data folder, with tiles from a fake tile server. */
export function packService(side: AppSide, opts: { fetchTile?: FetchTile; clock?: () => Date; faceBlur?: FaceBlur } = {}): Harness {
  const events: PackProgressEvent[] = [];
  const tiles: Harness['tiles'] = [];
  const fetchedMedia: string[] = [];
  const online = { value: true };
  const service = createPackService({
    cache: side.cache,
    dataDir: side.dir,
    layers: () => packLayers(side.store, side.layers),
    online: () => online.value,
    fetchTile:
      opts.fetchTile ??
      (async (z, x, y) => {
        tiles.push({ z, x, y });
        return tileImage((z * 40 + x + y) % 255);
      }),
    fetchMedia: async (url) => {
      fetchedMedia.push(url);
      if (!FETCHABLE.includes(url)) throw new Error(`${url}: 404`);
      return { contentType: 'image/jpeg', bytes: jpegLike(1200) };
    },
    clock: opts.clock ?? (() => new Date()),
    faceBlur: opts.faceBlur,
    emit: (e) => events.push(e),
    logger: createMemoryLogger(),
  });
  return { service, events, tiles, fetchedMedia, online };
}

/** Waits for the job's last event. */
export async function finished(h: Harness, jobId: string): Promise<PackProgressEvent> {
  await h.service.settled(jobId);
  const last = h.events.filter((e) => e.jobId === jobId).at(-1);
  if (!last || last.state === 'running') throw new Error('the pack job did not finish');
  return last;
}
