import { bboxClip, feature, featureCollection, intersect } from '@turf/turf';
import type { Geometry, MultiPolygon, Polygon } from 'geojson';
import { PACK_MAX_TILES, type PackEstimate, type PackSelection } from '../../../shared/rpc/methods/pack';
import type { Cache } from '../../cache';
import { encodeWkb } from '../../ground/wkb';
import { readArea, tileCount, tileRanges, type Area, type TileRange } from './area';
import type { PackLayerFeature, PackLayerInfo, PackLayers } from './layers-port';

/** Where a pack reads from. */
export interface PackSources {
  cache: Cache;
  /** The data layers; null while the bundled service is not running. */
  layers: () => PackLayers | null;
  /** Whether basemap tiles can be fetched now. */
  online: () => boolean;
}

export interface PackLayer {
  info: PackLayerInfo;
  features: PackLayerFeature[];
}

/** Everything a selection covers, found once and used by the estimate and the writer. */
export interface Selection {
  area: Area;
  /** Cached queries with an item in the area and in the date range, oldest first. */
  queryIds: number[];
  features: number;
  rawBytes: number;
  uploads: { count: number; bytes: number };
  /** Cached media of the queries' items. */
  media: { url: string; size: number }[];
  /** Media of the queries' items never viewed, so not cached. */
  missingMedia: string[];
  layers: PackLayer[];
  tiles: TileRange[];
  tileCount: number;
}

/** A typical OpenStreetMap tile (PNG, 256 px): for the estimate only. */
const TILE_BYTES = 20_000;
/** A written item: its index row, its GeoPackage feature row, and their index entries. */
const ITEM_BYTES = 400;
/** A pack with nothing in it (schema pages of the GeoPackage and the pack tables), measured. */
const EMPTY_PACK_BYTES = 160_000;
/** Each GeoPackage layer's own pages: its table, R-tree and their first pages, measured. */
const LAYER_BYTES = 20_000;

export async function select(src: PackSources, sel: PackSelection): Promise<Selection> {
  const area = readArea(sel.area);
  const listed = src.cache.list({
    ...(area.isBox ? { bbox: area.box } : { polygon: area.ring }),
    ...(sel.from !== undefined ? { from: sel.from } : {}),
    ...(sel.to !== undefined ? { to: sel.to } : {}),
    limit: Number.MAX_SAFE_INTEGER - 1,
  }).items;
  // Oldest first: a re-run comes after the query it re-ran, which a reader then already knows.
  const queryIds = listed.map((q) => q.id).reverse();
  const fp = src.cache.footprint(queryIds);
  const media = src.cache.mediaUrlsOf(queryIds);
  const tiles = sel.maxTileZoom === undefined ? [] : tileRanges(area.box, sel.maxTileZoom);
  return {
    area,
    queryIds,
    features: fp.features,
    rawBytes: fp.rawBytes,
    uploads: fp.uploads,
    media: media.filter((m): m is { url: string; size: number } => m.size !== null),
    missingMedia: media.filter((m) => m.size === null).map((m) => m.url),
    layers: await layersIn(src.layers(), area),
    tiles,
    tileCount: tileCount(tiles),
  };
}

export function estimate(src: PackSources, s: Selection): PackEstimate {
  const mediaBytes = s.media.reduce((a, m) => a + m.size, 0);
  const layerBytes = s.layers.reduce((a, l) => a + l.features.reduce((b, f) => b + encodeWkb(f.geometry).length + JSON.stringify(f.tags).length + ITEM_BYTES, 0), 0);
  const online = src.online();
  const tooMany = s.tileCount > PACK_MAX_TILES;
  const tileBytes = online && !tooMany ? s.tileCount * TILE_BYTES : 0;
  return {
    queries: s.queryIds.length,
    features: s.features,
    media: { count: s.media.length, bytes: mediaBytes, missing: s.missingMedia.length },
    uploads: s.uploads,
    layers: s.layers.map((l) => ({ name: l.info.name, features: l.features.length })),
    tiles: { count: s.tileCount, online, tooMany },
    // Items are carried twice: the cache's rows and the GeoPackage layer.
    bytes:
      EMPTY_PACK_BYTES +
      LAYER_BYTES * (s.queryIds.length + s.layers.length) +
      s.rawBytes +
      s.features * ITEM_BYTES +
      mediaBytes +
      s.uploads.bytes +
      layerBytes +
      tileBytes,
  };
}

/** Each data layer's features that meet the area, clipped to it. */
async function layersIn(store: PackLayers | null, area: Area): Promise<PackLayer[]> {
  if (!store) return [];
  const out: PackLayer[] = [];
  for (const info of store.list()) {
    const b = info.bbox;
    if (!b || b[0] > area.box[2] || b[2] < area.box[0] || b[1] > area.box[3] || b[3] < area.box[1]) continue;
    const found = await store.intersecting(info.id, area.polygon);
    const features: PackLayerFeature[] = [];
    for (const f of found) {
      const geometry = clip(f.geometry, area);
      if (geometry) features.push({ ...f, geometry });
    }
    if (features.length) out.push({ info, features });
  }
  return out;
}

/**
 * A geometry cut to the area: polygons to the area itself, lines to the area's box (exact for an
 * area drawn as a box), points as they are (the store already kept only those inside).
 */
export function clip(g: Geometry, area: Area): Geometry | null {
  switch (g.type) {
    case 'Point':
    case 'MultiPoint':
    case 'GeometryCollection':
      return g;
    case 'Polygon':
    case 'MultiPolygon': {
      if (area.isBox) return nonEmpty(bboxClip(feature(g), area.box).geometry);
      const cut = intersect(featureCollection([feature(g as Polygon | MultiPolygon), feature(area.polygon)]));
      return cut ? cut.geometry : null;
    }
    default:
      return nonEmpty(bboxClip(feature(g), area.box).geometry);
  }
}

function nonEmpty(g: Geometry): Geometry | null {
  const c = (g as { coordinates: unknown[] }).coordinates;
  if (!c.length) return null;
  if (g.type === 'MultiLineString' || g.type === 'MultiPolygon') {
    const parts = (c as unknown[][]).filter((p) => p.length > 0);
    if (!parts.length) return null;
    return parts.length === 1 ? ({ type: g.type === 'MultiPolygon' ? 'Polygon' : 'LineString', coordinates: parts[0] } as Geometry) : ({ ...g, coordinates: parts } as Geometry);
  }
  if (g.type === 'Polygon' && (c as unknown[][]).every((r) => r.length === 0)) return null;
  return g;
}
