import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';
import GeoJSONVT, { type LegacyTile } from 'geojson-vt';
import vtpbf from 'vt-pbf';
import { pointOnFeature } from '@turf/turf';
import { STREET_CLASSES, STREET_MAX_ZOOM, STREET_MIN_ZOOM, streetClassOf } from '../../../../shared/basemap/streetClasses';
import type { BBox } from '../store/geo';
import type { LayerInfo, LayerStore, TagMatch } from '../store/layer-store';
import { coalesce } from './coalesce';

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

/**
 * Moves positions of tile z/x/y to where tile 2/1/1 is, keeping Web Mercator's shape: geojson-vt
 * then cuts two levels down rather than z, and the tile's buffer stays far from the antimeridian
 * (which geojson-vt wraps at zoom 0).
 */
function toTile211(z: number, x: number, y: number): (g: Geometry) => Geometry {
  const n = 2 ** z;
  const move = ([lon, lat]: Position): Position => {
    const r = (lat! * Math.PI) / 180;
    const u = ((lon! + 180) / 360) * n - x;
    const v = ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n - y;
    return [((1 + u) / 4) * 360 - 180, (Math.atan(Math.sinh(Math.PI * (1 - (2 * (1 + v)) / 4))) * 180) / Math.PI];
  };
  const geometry = (g: Geometry): Geometry => {
    switch (g.type) {
      case 'Point':
        return { type: g.type, coordinates: move(g.coordinates) };
      case 'MultiPoint':
      case 'LineString':
        return { type: g.type, coordinates: g.coordinates.map(move) } as Geometry;
      case 'MultiLineString':
      case 'Polygon':
        return { type: g.type, coordinates: g.coordinates.map((l) => l.map(move)) } as Geometry;
      case 'MultiPolygon':
        return { type: g.type, coordinates: g.coordinates.map((p) => p.map((l) => l.map(move))) };
      case 'GeometryCollection':
        return { type: g.type, geometries: g.geometries.map(geometry) };
    }
  };
  return geometry;
}

const meets = (a: BBox, b: BBox) => a[0] <= b[2] && a[2] >= b[0] && a[1] <= b[3] && a[3] >= b[1];

/** The tag tests of every class drawn at a zoom, for the store to select by. */
const matchAt = (z: number): TagMatch[] => STREET_CLASSES.filter((c) => c.minZoom <= z).flatMap((c) => c.match);

/**
 * Street-level basemap tiles made on demand from the OSM extracts in the layer store: the
 * features of a tile are selected through the store's spatial index (R*Tree, or GiST on
 * PostGIS) and tag tests, classified by STREET_CLASSES, cut and encoded by geojson-vt and vt-pbf.
 */
export function createStreetTiles(options: StreetTilesOptions): StreetTiles {
  const cap = options.cacheTiles ?? 512;
  const made = new Map<string, Uint8Array | null>();
  let generation = 0;

  async function make(z: number, x: number, y: number): Promise<Uint8Array | null> {
    const box = tileBBox(z, x, y);
    const extracts = (await options.layers()).filter((l) => isExtract(l) && l.bbox && meets(l.bbox, box));
    if (!extracts.length) return null;
    const match = matchAt(z);
    const features: Feature[] = [];
    const move = toTile211(z, x, y);
    for (const l of extracts) {
      for (const f of await options.store.inBBox(l.id, box, { match, boxOnly: true })) {
        const c = streetClassOf(f.tags, z);
        if (!c) continue;
        let geometry: Geometry = f.geometry;
        if (c.asPoint && geometry.type !== 'Point') geometry = pointOnFeature(geometry).geometry;
        const name = f.tags['name'];
        features.push({ type: 'Feature', geometry: move(geometry), properties: { layer: c.layer, class: c.class, ...(typeof name === 'string' ? { name } : {}) } });
      }
    }
    const fc: FeatureCollection = { type: 'FeatureCollection', features: coalesce(features) };
    // One index for this tile alone (standing in for tile 2/1/1), nothing kept above it.
    const index = new GeoJSONVT(fc, { maxZoom: 2, indexMaxZoom: 0, indexMaxPoints: 0, extent: EXTENT, buffer: BUFFER, tolerance: z >= STREET_MAX_ZOOM ? 1 : 3 });
    const tile = index.getTile(2, 1, 1);
    const byLayer: Record<string, LegacyTile> = {};
    for (const f of tile?.features ?? []) {
      const { layer, ...tags } = f.tags as { layer: string };
      (byLayer[layer] ??= { features: [] }).features.push({ ...f, tags });
    }
    return vtpbf.fromGeojsonVt(byLayer, { version: 2, extent: EXTENT });
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
      const gen = generation;
      const data = await make(z, x, y);
      // A tile made while the layers changed belongs to the old ones: answered, not kept.
      if (gen === generation) {
        made.set(key, data);
        if (made.size > cap) made.delete(made.keys().next().value!);
      }
      return data;
    },
    invalidate() {
      generation++;
      made.clear();
    },
  };
}
