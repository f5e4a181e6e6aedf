import type { Kind } from '../catalog/catalog';
import type { BBox } from './bbox';
import type { SaidDistance } from './units';

/** A point that distances are measured from, with how it was named. */
export interface RefPoint {
  lon: number;
  lat: number;
  label: string;
}

/** What a reference phrase pointed at: fixed places, or every item of a class. */
export type Reference =
  | { type: 'points'; points: RefPoint[]; label: string }
  | ({ type: 'class'; kind: Kind; popMin?: number; popMax?: number; label: string } & ModifierValues)
  | { type: 'saved'; label: string };

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
  /** Country filters (alpha-2), ORed. */
  countries: string[];
  /** Items within radiusKm of the reference. */
  within?: { reference: Reference; radiusKm: number; said?: SaidDistance };
  /** Items inside a latitude/longitude box. */
  bbox?: BBox;
  /** Distance reference for distance_meters and "nearest" when no radius was given. */
  distanceRef?: Reference;
  popMin?: number;
  popMax?: number;
  order?: 'population_desc' | 'population_asc' | 'distance';
  top?: number;
  measurement?: Measurement;
  byCountry?: boolean;
  /** Place names the question gave that name no known place: the answer is then empty. */
  unread: string[];
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
