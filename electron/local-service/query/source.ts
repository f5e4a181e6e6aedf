import type { Geometry, Position } from 'geojson';
import type { BBox } from '../layers/store/geo';

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

  /** Candidates whose geometry meets a box [west, south, east, north]. */
  inBox(box: BBox): Promise<T[]>;
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
}

/** A number for ordering by a column: numbers as they are, numeric text read, anything else NaN. */
export function numericValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return NaN;
}
