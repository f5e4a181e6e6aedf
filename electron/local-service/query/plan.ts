import type { Geometry } from 'geojson';
import type { Kind } from '../catalog/catalog';
import type { Selection } from '../vocabulary/vocabulary';
import type { BBox } from './bbox';
import type { UnreadPart } from './refusal';
import type { SaidDistance } from './units';

/** What an uploaded feature is: "my polygon" names the areas, "my route" the lines. */
export type UploadShape = 'point' | 'line' | 'area';

export function shapeOf(g: Geometry): UploadShape | null {
  if (g.type === 'Point' || g.type === 'MultiPoint') return 'point';
  if (g.type === 'LineString' || g.type === 'MultiLineString') return 'line';
  if (g.type === 'Polygon' || g.type === 'MultiPolygon') return 'area';
  return null;
}

/** A point that distances are measured from, with how it was named. */
export interface RefPoint {
  lon: number;
  lat: number;
  label: string;
  /** A request coordinate: a site of the person asking, named by them. */
  site?: true;
}

/** What a reference phrase pointed at: fixed places, or every item of a class. */
export type Reference =
  | { type: 'points'; points: RefPoint[]; label: string }
  | ({ type: 'class'; kind: Kind; popMin?: number; popMax?: number; label: string; shape?: UploadShape } & ModifierValues)
  | { type: 'saved'; label: string }
  /** Features of data layers named by the vocabulary ("a substation", "Nordviertel", "the Lenne"). */
  | { type: 'selection'; selection: Selection; label: string }
  /** A selection read from its layers: the geometries distances are measured to. */
  | { type: 'geoms'; geoms: Geometry[]; label: string };

/**
 * Photos by what the detector saw in them ("photos showing cars", "benches seen near X"): the
 * class, or null when the words name none the detector has (the question is then refused).
 */
export interface SeenSubject {
  label: string | null;
  /** The question's words ("photos showing cars"). */
  said: string;
  plural: boolean;
  /** The detector's classes: what a refusal says it can see. */
  classes: readonly string[];
}

/** A test on a feature's attributes ("open now", "wheelchair accessible", "capacity over 100"). */
export type Condition =
  | { type: 'open_now'; label: string }
  | { type: 'open_on'; day: number; label: string }
  | { type: 'open_at'; hour: number; minute: number; label: string }
  /** `inWords`: the key was said in words ("admin level 8"), not written as a tag. */
  | { type: 'equals'; key: string; values: string[]; label: string; inWords?: true }
  | { type: 'contains'; key: string; text: string; label: string }
  | { type: 'number'; keys: string[]; min?: number; max?: number; label: string }
  /** A text tag compared in the form names are matched in ("named Lindenhof", "name starts with St"). */
  | { type: 'text'; key: string; text: string; mode: 'is' | 'starts' | 'contains'; label: string }
  /** The tag is there ("with a wikidata tag"), or is not ("unnamed", "without wheelchair"). */
  | { type: 'present'; key: string; label: string }
  | { type: 'absent'; key: string; label: string }
  /** Not any of these tag tests ("not footways"): each an AND of key (= one of values). */
  /** `phrase`: said as a phrase of the vocabulary ("not schools"), not written as a tag. */
  | { type: 'not_match'; match: { key: string; values?: string[] }[][]; label: string; phrase?: true }
  /**
   * OSM element types ("nodes", "ways"): tested on the feature's source id (node/…, way/…,
   * relation/…); a feature without one is tested on its geometry (a node is a point).
   */
  | { type: 'element'; elements: ('node' | 'way' | 'relation')[]; label: string }
  /** Geometry types ("polygons", "lines", "points"). */
  | { type: 'shape'; shapes: UploadShape[]; label: string };

/** A distance relation: d ≤ radiusKm, and d > minKm (or d ≥ minKm when minInclusive). */
export interface Within {
  reference: Reference;
  radiusKm: number;
  minKm?: number;
  minInclusive?: boolean;
  said?: SaidDistance;
  /** The lower bound as said ("between 1 and 2 km": 1 km). */
  saidMin?: SaidDistance;
}

/** Whether a distance in km is past the relation's lower bound (true without one); the upper bound is tested where distances are measured. */
export function pastMin(w: Within, km: number): boolean {
  if (w.minKm === undefined) return true;
  return w.minInclusive ? km >= w.minKm : km > w.minKm;
}

export type Measurement = 'count' | 'per_capita' | 'per_area';
export const MEASUREMENTS: readonly Measurement[] = ['count', 'per_capita', 'per_area'];

/**
 * Modifier values a reading chose ("major airports": large true), each under the key its kind's
 * vocabulary entry gives it: the keys are data, not fields of the reading.
 */
export interface ModifierValues {
  [modifier: string]: unknown;
}

/** A modifier's value in a reading, if the words chose one. */
export function modifierValue(v: ModifierValues, key: string): boolean | undefined {
  const x = v[key];
  return typeof x === 'boolean' ? x : undefined;
}

/** The reading of one question: deterministic, and explained item by item in warnings. */
export interface Plan extends ModifierValues {
  subject: Kind | null;
  /** A subject read from the layer vocabulary (features of data layers) instead of a kind. */
  layerSubject?: Selection;
  /** The layer subject was implied by tag words alone ("amenity=bench", "unnamed ones"): a follow-up made of them continues. */
  impliedSubject?: true;
  /** A subject read as photos showing a class of the detector (query/sources/detections.ts). */
  seen?: SeenSubject;
  /**
   * Uploads as the subject, besides those of this shape: "which of my sites lie inside my
   * polygon" asks for the other files' features, the polygons being the reference.
   */
  uploadsExcept?: UploadShape;
  /** Relations to features of layers (or any reference). */
  inside?: Reference;
  outside?: Reference;
  intersecting?: Reference;
  /** "pharmacies per district": counts per polygon of this reference. */
  perRef?: Reference;
  conditions: Condition[];
  /** Country filters (alpha-2), ORed. */
  countries: string[];
  /**
   * Items within radiusKm of the reference (Infinity: no upper bound), and past minKm when a
   * ring or "beyond" was asked ("between 1 and 2 km of X": 1 ≤ d ≤ 2; "more than 100 km from X": d > 100).
   */
  within?: Within;
  /** Items inside a latitude/longitude box. */
  bbox?: BBox;
  /** Distance reference for distance_meters and "nearest" when no radius was given. */
  distanceRef?: Reference;
  popMin?: number;
  popMax?: number;
  order?: 'population_desc' | 'population_asc' | 'distance' | 'distance_desc';
  /** "by capacity": the numeric column "largest" and "smallest" rank by (population when absent). */
  orderBy?: { keys: string[]; label: string };
  top?: number;
  measurement?: Measurement;
  byCountry?: boolean;
  /** Place names the question gave that name no known place; each is also in `notRead`, so the question is refused. */
  unread: string[];
  /** Parts of the question no rule could use: the question is then not answered (422), never answered wider. */
  notRead: UnreadPart[];
  /** Why the question cannot be answered as asked (HTTP 400), e.g. a box with impossible edges. */
  invalid?: string;
  /** Words of the question that took part in no rule. */
  ignored: string[];
  warnings: Warning[];
}

export interface Warning {
  code: string;
  message: string;
  [k: string]: unknown;
}
