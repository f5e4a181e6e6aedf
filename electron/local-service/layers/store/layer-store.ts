import type { Geometry, Position } from 'geojson';
import type { LayerFeature, LayerFormat } from '../types';
import type { BBox } from './geo';

/**
 * The storage interface of data layers, `LayerStore` (below): asynchronous throughout, so the
 * question engine reads the embedded SQLite store (sqlite-layer-store.ts, the default, through
 * asAsyncLayerStore) and PostGIS (postgis-layer-store.ts) alike. Both run the same tests.
 */

export interface LayerInfo {
  id: string;
  name: string;
  sourceFile: string;
  format: LayerFormat;
  featureCount: number;
  /** Counts per geometry type, e.g. {Point: 120, LineString: 14}. */
  geometryTypes: Record<string, number>;
  bbox: BBox | null;
  sizeBytes: number;
  licence: string | null;
  /** Where the data came from, in words, for results and the credits screen. */
  sourceText: string;
  warnings: string[];
  createdAt: string;
}

export interface StoredFeature {
  layerId: string;
  fid: number;
  sourceId: string;
  sublayer: string | null;
  geometry: Geometry;
  tags: Record<string, unknown>;
}

export interface NearFeature extends StoredFeature {
  /** Metres to the feature's nearest point (0 inside a polygon). */
  distanceMeters: number;
}

export interface NewLayer {
  name: string;
  sourceFile: string;
  format: LayerFormat;
  licence: string | null;
  sourceText: string;
}

/** One import into the embedded store, synchronous (see LayerWriter). */
export interface EmbeddedLayerWriter {
  readonly id: string;
  readonly count: number;
  add(features: readonly LayerFeature[]): void;
  /** Builds the spatial index, records the figures and makes the layer visible, atomically. */
  commit(warnings: string[]): LayerInfo;
  abort(): void;
}

/**
 * A tag test as data (so a SQL backend can translate it): every clause holds; a clause holds
 * when the key is present and, if `values` is given, its value is one of them.
 */
export type TagMatch = { key: string; values?: string[] }[];

export interface QueryOptions {
  limit?: number;
  /** Only features that pass any of these tag tests (absent: every feature). */
  match?: TagMatch[];
  /**
   * inBBox only: every feature whose bounding box meets the box, without the exact test (a
   * diagonal line near a corner may pass). Enough for drawing, which clips to the box anyway.
   */
  boxOnly?: boolean;
}

/** What a layer's columns hold, for its vocabulary: distinct values up to a bound per key. */
export interface ColumnSummary {
  key: string;
  /** Features with a value in this column. */
  count: number;
  /** Distinct text values, most frequent first; null when there are more than the bound. */
  values: string[] | null;
  /** Whether every value reads as a number (OSM writes numbers as text). */
  numeric: boolean;
}

export interface LayerSummary {
  columns: ColumnSummary[];
}

/**
 * The embedded store's own synchronous calls (listing and imports answer at once); the service
 * and the question engine see it as a LayerStore through asAsyncLayerStore.
 */
export interface EmbeddedLayerStore {
  create(layer: NewLayer): EmbeddedLayerWriter;
  list(): LayerInfo[];
  get(id: string): LayerInfo | null;
  remove(id: string): boolean;
  // Queries are asynchronous so that a database server (PostGIS) can answer them; the embedded
  // store answers at once.
  feature(layerId: string, fid: number): Promise<StoredFeature | null>;
  /** Features whose geometry meets the box [minLon, minLat, maxLon, maxLat]. */
  inBBox(layerId: string, bbox: BBox, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Features within `metres` of a point, nearest first. */
  within(layerId: string, point: Position, metres: number, opts?: QueryOptions): Promise<NearFeature[]>;
  /** The k features nearest a point, nearest first (fewer if the layer holds fewer). */
  nearest(layerId: string, point: Position, k: number, opts?: Pick<QueryOptions, 'match'>): Promise<NearFeature[]>;
  /** Polygons that contain a point. */
  containing(layerId: string, point: Position, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Features that intersect a geometry (touching counts). */
  intersecting(layerId: string, geometry: Geometry, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Every feature that passes the tag tests, in storage order (no spatial index involved). */
  scan(layerId: string, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** The same as scan, handed out one at a time as rows are read (a whole layer in bounded memory). */
  iterate(layerId: string, opts?: Pick<QueryOptions, 'match'>): IterableIterator<StoredFeature>;
  /** The layer's columns and their values (bounded), recorded at import. */
  summary(layerId: string): Promise<LayerSummary>;
  close(): void;
}

/** One import in progress: nothing of it is listed until commit(); abort() leaves nothing. */
export interface LayerWriter {
  readonly id: string;
  readonly count: number;
  add(features: readonly LayerFeature[]): Promise<void>;
  /** Builds the spatial index, records the figures and makes the layer visible, atomically. */
  commit(warnings: string[]): Promise<LayerInfo>;
  abort(): Promise<void>;
}

export interface ScanOptions {
  /** Only features whose geometry meets this box (absent: the whole layer). */
  bbox?: BBox;
  match?: TagMatch[];
}

/** A polygon's fid and how many features of another selection it intersects. */
export interface PolygonCount {
  fid: number;
  count: number;
}

/**
 * What the service and the question engine read layers through. Same answers on every backend:
 * distances in great-circle metres, nearest first, results in fid order otherwise, all-or-nothing
 * imports. A database backend does the spatial work (distances, nearest, intersections, counts)
 * in SQL and streams large reads.
 */
export interface LayerStore {
  create(layer: NewLayer): Promise<LayerWriter>;
  list(): Promise<LayerInfo[]>;
  get(id: string): Promise<LayerInfo | null>;
  remove(id: string): Promise<boolean>;
  feature(layerId: string, fid: number): Promise<StoredFeature | null>;
  /** Features whose geometry meets the box [minLon, minLat, maxLon, maxLat]. */
  inBBox(layerId: string, bbox: BBox, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Features within `metres` of a point, nearest first. */
  within(layerId: string, point: Position, metres: number, opts?: QueryOptions): Promise<NearFeature[]>;
  /** The k features nearest a point, nearest first (fewer if the layer holds fewer). */
  nearest(layerId: string, point: Position, k: number, opts?: Pick<QueryOptions, 'match'>): Promise<NearFeature[]>;
  /** Polygons that contain a point. */
  containing(layerId: string, point: Position, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Features that intersect a geometry (touching counts). */
  intersecting(layerId: string, geometry: Geometry, opts?: QueryOptions): Promise<StoredFeature[]>;
  /**
   * Every feature that passes the tests, in fid order, a page at a time as it is read: a whole
   * country layer passes through in bounded memory (PostGIS reads it through a cursor). Breaking
   * out of the loop ends the read.
   */
  scan(layerId: string, opts?: ScanOptions): AsyncIterable<StoredFeature[]>;
  /**
   * For each polygon of one layer that passes `polygons.match`, how many features of another
   * layer passing `subject.match` it intersects (0 included), in polygon fid order.
   */
  countPerPolygon(polygons: { layerId: string; match?: TagMatch[] }, subject: { layerId: string; match?: TagMatch[] }): Promise<PolygonCount[]>;
  /** The layer's columns and their values (bounded), recorded at import. */
  summary(layerId: string): Promise<LayerSummary>;
  close(): Promise<void>;
}

export class LayerNotFoundError extends Error {
  constructor(readonly layerId: string) {
    super(`no layer ${layerId}`);
    this.name = 'LayerNotFoundError';
  }
}
