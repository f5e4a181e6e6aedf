import type { Geometry, Position } from 'geojson';
import type { BBox } from '../layers/store/geo';
import type { Item } from './item';
import type { ModifierValues } from './plan';

/**
 * What every source of features answers the executor: the built-in kinds (sources/catalog.ts),
 * a data layer on either backend (sources/layer.ts) and an uploaded file, a temporary layer of
 * the question (sources/upload.ts). Spatial calls give candidates, at least every feature that
 * passes and perhaps a few more at the edge: the executor's exact test on each candidate decides.
 * `T` is the source's own handle of one feature.
 */
export interface Source<T> {
  /** What its features are, in the plural ("airports", "pharmacies", "your uploaded features"). */
  readonly label: string;
  /** Whether its features carry a population (population filters and "largest"). */
  readonly populated: boolean;
  /** The columns it holds, as people name them: what a refusal says the data has. */
  columns(): string[];
  /** Columns with numbers it can be ordered by ("population", "elevation"). */
  numericColumns(): string[];

  /** Candidates whose geometry meets a box [west, south, east, north]; `note` says what they are if a bound is reached. */
  inBox(box: BBox, note?: string): Promise<T[]>;
  /** Candidates within `km` of a point. */
  within(point: Position, km: number): Promise<T[]>;
  /** The k features nearest a point, nearest first, none nearer than `minKm` (a lower bound of the search). */
  nearest(point: Position, k: number, minKm?: number): Promise<T[]>;
  /** Every feature, in the source's own order (largest population first where it has one); bounded by the source. */
  all(): Promise<T[]>;
  /** Features of one country (ISO alpha-2), in the source's own order. */
  inCountry(cca2: string): Promise<T[]>;

  /** A position standing for the feature (the point itself, else a point on it). */
  position(x: T): Position;
  /** The feature's geometry, which distances and relations are measured to. */
  geometry(x: T): Geometry;
  /** ISO alpha-2 of the country holding it ('' when none): country filters and figures per country. */
  country(x: T): string;
  /** Its world region ("Europe"; '' when none): figures per region. */
  region(x: T): string;
  /** Its values by column, for attribute predicates ("open now", "status is open") and ordering. */
  attributes(x: T): Record<string, unknown>;

  // What only some sources have; the executor does without where one is missing.
  /** Every feature is a point at its position: relations and distances need no geometry. */
  readonly pointLike?: boolean;
  /** Its population (NaN when unknown), where the source is `populated`. */
  population?(x: T): number;
  /** The source's own order of results when none was asked for. */
  compare?(a: T, b: T): number;
  /** One test for the source's modifiers a reading chose ("large", "capital"), undefined when none was. */
  modifiers?(chosen: ModifierValues): ((x: T) => boolean) | undefined;
  /** Candidates that intersect a geometry (touching counts); without it, those in its box. `note` says what they are if a bound is reached. */
  intersecting?(g: Geometry, note: string): Promise<T[]>;
  /** Columns conditions can test, one list per part (a layer each), null where a part's are not all known; without it, `columns()`. */
  conditionColumns?(): (string[] | null)[];
  /** The box its features lie in, when known: references of other sources are read only near it. */
  extent?(): BBox | null;
  /** The id of the feature in its own data ("way/123" for an OSM element): what "nodes" and "ways" test. */
  sourceId?(x: T): string;
  /** What a result of this source is in the answer. */
  item?(x: T): Item;
}

/** A number for ordering by a column: numbers as they are, numeric text read, anything else NaN. */
export function numericValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return NaN;
}
