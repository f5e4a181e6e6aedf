import { z } from 'zod';

/** WGS84 position in GeoJSON order: [longitude, latitude, (altitude)]. */
export const Longitude = z.number().min(-180).max(180);
export const Latitude = z.number().min(-90).max(90);
export const Position = z.tuple([Longitude, Latitude]).rest(z.number());
export type Position = z.infer<typeof Position>;

export const PointGeometry = z.object({ type: z.literal('Point'), coordinates: Position }).loose();
const MultiPoint = z.object({ type: z.literal('MultiPoint'), coordinates: z.array(Position) }).loose();
const LineString = z.object({ type: z.literal('LineString'), coordinates: z.array(Position).min(2) }).loose();
const MultiLineString = z
  .object({ type: z.literal('MultiLineString'), coordinates: z.array(z.array(Position).min(2)) })
  .loose();
const Polygon = z.object({ type: z.literal('Polygon'), coordinates: z.array(z.array(Position).min(4)) }).loose();
const MultiPolygon = z
  .object({ type: z.literal('MultiPolygon'), coordinates: z.array(z.array(z.array(Position).min(4))) })
  .loose();

const SimpleGeometry = z.discriminatedUnion('type', [
  PointGeometry,
  MultiPoint,
  LineString,
  MultiLineString,
  Polygon,
  MultiPolygon,
]);
const GeometryCollection = z
  .object({ type: z.literal('GeometryCollection'), geometries: z.array(SimpleGeometry) })
  .loose();

/** Any RFC 7946 geometry a response can hold. */
export const Geometry = z.union([SimpleGeometry, GeometryCollection]);
export type Geometry = z.infer<typeof Geometry>;
