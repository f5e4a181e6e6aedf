import { z } from 'zod';
import { RpcErrorBody } from '../errors';

const Lon = z.number().min(-180).max(180);
const Lat = z.number().min(-90).max(90);

/** The area of a pack: a box [minLon, minLat, maxLon, maxLat] or one outer ring of [lon, lat]. */
export const PackArea = z.union([
  z
    .object({ bbox: z.tuple([Lon, Lat, Lon, Lat]) })
    .strict()
    .refine(({ bbox: [x0, y0, x1, y1] }) => x0 < x1 && y0 < y1, 'the box must have min < max on both axes'),
  z.object({ polygon: z.array(z.tuple([Lon, Lat])).min(3).max(10_000) }).strict(),
]);
export type PackArea = z.infer<typeof PackArea>;

/** Web map tiles reach zoom 19; past 16 an area of a few streets already needs thousands. */
export const PACK_MAX_TILE_ZOOM = 16;
/** Tiles one pack may fetch: the tile server's usage policy forbids bulk downloads. */
export const PACK_MAX_TILES = 3000;

/** The online basemap (OpenStreetMap's standard tiles), as the map draws it. */
export const ONLINE_TILE_TEMPLATE = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

export const PackSelection = z
  .object({
    area: PackArea,
    /** Questions asked from / up to these times (ms since the epoch). */
    from: z.number().int().optional(),
    to: z.number().int().optional(),
    /** Basemap tiles up to this zoom (absent: none). */
    maxTileZoom: z.number().int().min(0).max(PACK_MAX_TILE_ZOOM).optional(),
    /** Faces in the pack's images are hidden (default true); the pack's meta says what was done. */
    blurFaces: z.boolean().optional(),
    /** Vehicles are blurred whole too, a coarse stand-in for number plates (default false; only with blurFaces). */
    blurVehicles: z.boolean().optional(),
  })
  .strict()
  .refine((s) => s.from === undefined || s.to === undefined || s.from <= s.to, 'the date range ends before it starts');
export type PackSelection = z.infer<typeof PackSelection>;

export const PackEstimate = z.object({
  queries: z.number().int(),
  features: z.number().int(),
  /** Cached images and videos of the area's results; `missing` were never viewed, so they are fetched while packing (online) or left out. */
  media: z.object({ count: z.number().int(), bytes: z.number().int(), missing: z.number().int() }),
  uploads: z.object({ count: z.number().int(), bytes: z.number().int() }),
  layers: z.array(z.object({ name: z.string(), features: z.number().int() })),
  /** Tiles of the area up to the zoom asked; `online` false: none can be fetched now. */
  tiles: z.object({ count: z.number().int(), online: z.boolean(), tooMany: z.boolean() }),
  /** Bytes the pack will take, about (tiles counted at a typical size). */
  bytes: z.number().int(),
});
export type PackEstimate = z.infer<typeof PackEstimate>;

export const PackContents = z.object({
  queries: z.number().int(),
  features: z.number().int(),
  media: z.number().int(),
  uploads: z.number().int(),
  layers: z.number().int(),
  layerFeatures: z.number().int(),
  tiles: z.number().int(),
});
export type PackContents = z.infer<typeof PackContents>;

export const PackJobState = z.enum(['running', 'done', 'failed', 'cancelled']);

export const PackProgressEvent = z.object({
  jobId: z.string(),
  state: PackJobState,
  /** What is being written: queries, media, layers, tiles, geopackage. */
  phase: z.string(),
  done: z.number().int().min(0),
  total: z.number().int().min(0),
  path: z.string(),
  /** The finished file's size and what it holds (state done). */
  bytes: z.number().int().nullable(),
  contents: PackContents.nullable(),
  /** Images of the area's results that could not be fetched (state done): the pack lacks them. */
  mediaMissing: z.number().int().nullable(),
  error: RpcErrorBody.nullable(),
});
export type PackProgressEvent = z.infer<typeof PackProgressEvent>;

const PackPath = z.string().trim().min(1).max(4096);

export const packMethods = {
  /** What a pack of this selection would hold, and about how big it would be. */
  'pack.estimate': { input: PackSelection, output: PackEstimate },
  /** Starts writing the pack; progress and the end arrive as pack.progress events. */
  'pack.create': {
    input: z
      .object({
        selection: PackSelection,
        /** Absolute path of the .gpkg; absent: a file in the app's packs folder. An existing pack there is updated. */
        path: PackPath.optional(),
      })
      .strict(),
    output: z.object({ jobId: z.string(), path: z.string() }),
  },
  'pack.cancel': {
    input: z.object({ jobId: z.string().min(1) }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
  /** Imports a pack into this app's cache and layers; opening it again changes nothing twice. */
  'pack.open': {
    input: z.object({ path: PackPath }).strict(),
    output: z.object({ added: PackContents, updated: PackContents }),
  },
} as const;

export const packEvents = {
  'pack.progress': PackProgressEvent,
} as const;
