import type { Feature, Geometry } from 'geojson';
import vtpbf from 'vt-pbf';
import { pointOnFeature } from '@turf/turf';
import { STREET_CLASSES, STREET_MAX_ZOOM, STREET_MIN_ZOOM, streetClassOf } from '../../../../shared/basemap/streetClasses';
import type { BBox } from '../store/geo';
import type { LayerInfo, LayerStore, TagMatch } from '../store/layer-store';
import { coalesce } from './coalesce';
import { tileProjector, toTileFeature, type TileFeature } from './tile-geometry';

/** Tile units a side (the MVT default) and the margin drawn past each edge, so strokes meet across tiles. */
const EXTENT = 4096;
const BUFFER = 64;

export interface StreetTilesOptions {
  store: LayerStore;
  /** The layers now loaded; the OSM extracts among them make the basemap. */
  layers: () => Promise<LayerInfo[]>;
  /** Tiles kept in memory, most recently used first out last. */
  cacheTiles?: number;
}

export interface StreetTiles {
  /** A Mapbox vector tile of the extracts at z/x/y; null outside the street zooms or the extracts' area. */
  tile(z: number, x: number, y: number): Promise<Uint8Array | null>;
  /** Forgets made tiles (the layers changed). */
  invalidate(): void;
}

const isExtract = (l: LayerInfo) => l.format === 'osm-pbf' || l.format === 'osm-xml';

/** The tile's box in degrees, widened by the buffer. */
export function tileBBox(z: number, x: number, y: number, margin = BUFFER / EXTENT): BBox {
  const n = 2 ** z;
  const lon = (t: number) => (t / n) * 360 - 180;
  const lat = (t: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * t) / n))) * 180) / Math.PI;
  return [lon(x - margin), Math.max(-85.06, lat(y + 1 + margin)), lon(x + 1 + margin), Math.min(85.06, lat(y - margin))];
}

const meets = (a: BBox, b: BBox) => a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1];

/** The tag tests of every class drawn at a zoom, for the store to select by. */
const matchAt = (z: number): TagMatch[] => STREET_CLASSES.filter((c) => c.minZoom <= z).flatMap((c) => c.match);

/**
 * Street-level basemap tiles made on demand from the OSM extracts in the layer store: the
 * features of a tile are selected through the store's spatial index (R*Tree, or GiST on
 * PostGIS) and tag tests, classified by STREET_CLASSES, joined where they draw alike, projected
 * and cut to the tile (tile-geometry.ts) and encoded by vt-pbf.
 */
export function createStreetTiles(options: StreetTilesOptions): StreetTiles {
  const cap = options.cacheTiles ?? 512;
  const made = new Map<string, Uint8Array | null>();
  let generation = 0;
  // Tiles are made one at a time, each after a turn of the event loop. An embedded store answers
  // at once, so tiles asked together would otherwise be made in one run of promise callbacks: no
  // request (a health check among them) is served until the last is done, and all of a view's
  // tiles come back together at the end instead of one by one, for the map to draw as they come.
  let queue: Promise<unknown> = Promise.resolve();
  const pending = new Map<string, Promise<Uint8Array | null>>();
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function make(z: number, x: number, y: number): Promise<Uint8Array | null> {
    const box = tileBBox(z, x, y);
    const extracts = (await options.layers()).filter((l) => isExtract(l) && l.bbox && meets(l.bbox, box));
    if (!extracts.length) return null;
    const match = matchAt(z);
    const features: Feature[] = [];
    for (const l of extracts) {
      for (const f of await options.store.inBBox(l.id, box, { match, boxOnly: true })) {
        const c = streetClassOf(f.tags, z);
        if (!c) continue;
        let geometry: Geometry = f.geometry;
        if (c.asPoint && geometry.type !== 'Point') geometry = pointOnFeature(geometry).geometry;
        const name = f.tags['name'];
        features.push({ type: 'Feature', geometry, properties: { layer: c.layer, class: c.class, ...(typeof name === 'string' ? { name } : {}) } });
      }
    }
    // Projected once to tile units and cut to the tile and its buffer; no index is built for one tile.
    const project = tileProjector(z, x, y, EXTENT);
    const byLayer: Record<string, { features: TileFeature[] }> = {};
    for (const f of coalesce(features)) {
      const { layer, ...tags } = f.properties as { layer: string };
      const cut = toTileFeature(f.geometry, project, EXTENT, BUFFER, tags);
      if (cut) (byLayer[layer] ??= { features: [] }).features.push(cut);
    }
    return vtpbf.fromGeojsonVt(byLayer as never, { version: 2, extent: EXTENT });
  }

  return {
    async tile(z, x, y) {
      if (z < STREET_MIN_ZOOM || z > STREET_MAX_ZOOM) return null;
      const key = `${z}/${x}/${y}`;
      if (made.has(key)) {
        const hit = made.get(key)!;
        made.delete(key);
        made.set(key, hit);
        return hit;
      }
      const asked = pending.get(key);
      if (asked) return asked;
      const gen = generation;
      const run = queue.then(async () => {
        await turn();
        const data = await make(z, x, y);
        // A tile made while the layers changed belongs to the old ones: answered, not kept.
        if (gen === generation) {
          made.set(key, data);
          if (made.size > cap) made.delete(made.keys().next().value!);
        }
        return data;
      });
      queue = run.catch(() => undefined);
      pending.set(key, run);
      try {
        return await run;
      } finally {
        if (pending.get(key) === run) pending.delete(key);
      }
    },
    invalidate() {
      generation++;
      made.clear();
      pending.clear();
    },
  };
}
