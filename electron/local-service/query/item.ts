import type { Kind } from '../catalog/catalog';
import type { UploadSet } from '../uploads';
import type { Selection } from '../vocabulary/vocabulary';
import type { LayerHit } from './layers/resolve';
import type { MeasurementResult } from './measure';
import type { Reference, Warning } from './plan';
import type { ItemList } from './item-list';
import type { ReferenceLine } from './reference-line';

/** The `k` of items that are features of data layers: what the answer's `kind` property says of them. */
export const LAYER_ITEM: Kind = 'layer';

/**
 * One result of any source: its kind (a catalog kind, the uploads, or LAYER_ITEM) and number in
 * its source, its distance to the reference and any computed figures.
 */
export interface Item {
  k: Kind;
  /** Row of a kind, number of an uploaded feature, or fid of a layer feature. */
  i: number;
  /** Distance to the reference in meters, when there is one. */
  d?: number;
  /** Figures of an aggregate (per-country counts). */
  a?: Record<string, number | null>;
  /** The layer feature it is, with its layer (items of data layers). */
  hit?: LayerHit;
  /** Features of the subject it holds (the polygons of "per district"). */
  count?: number;
  /** Box (west, south, east, north) of the features an aggregate counts (a country of "per country"). */
  members?: [number, number, number, number];
}

/** A saved result set: what `search_id` continues. */
export interface SavedSet {
  subject: Kind;
  items: ItemList;
  uploads: UploadSet;
}

/** What the items of data layers are: the selection read and how the question said it. */
export interface LayerSubject {
  selection: Selection;
  /** In the plural, in the question's words ("pharmacies", "districts"). */
  label: string;
  /** Items are the polygons of "per district", each with its count. */
  perPolygon: boolean;
}

export interface Execution {
  subject: Kind;
  /** Uploaded rows are held as CompactItems: an Item is made for each only when read. */
  items: ItemList;
  /** Reference used for distances, if any. */
  reference?: Reference;
  radiusKm?: number;
  /** Whether the items are ranked nearest first. */
  nearestFirst: boolean;
  /** Matches before a top N cut them ("the nearest of 5,210 airports"). */
  matched: number;
  /** Only the nearest N were read from the source's index: `matched` counts those, not every match. */
  matchedUnknown?: boolean;
  measurement?: MeasurementResult;
  aggregated: boolean;
  /** The uploaded features that upload items index into. */
  uploads: UploadSet;
  /** Set when the subject is features of data layers. */
  layers?: LayerSubject;
  warnings: Warning[];
  /** Lines the answer was measured from (a river, a street), for the map. */
  referenceLines?: ReferenceLine[];
}
