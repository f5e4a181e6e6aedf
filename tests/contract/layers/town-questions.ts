import * as turf from '@turf/turf';
import type { Geometry, Polygon, Position } from 'geojson';
import { distanceTo } from '../../support/town/distance';
import type { TownFeature } from '../../support/town/town';

/**
 * Expected answers over the test town, computed here with turf from the generator's own
 * features (never from what the engine read back).
 */

export { distanceTo };

export const pointOf = (f: TownFeature): Position => {
  if (f.geometry.type !== 'Point') throw new Error(`${f.properties['name']} is no point`);
  return f.geometry.coordinates;
};

export const named = (fs: TownFeature[], name: string) => {
  const f = fs.find((x) => x.properties['name'] === name);
  if (!f) throw new Error(`no town feature ${name}`);
  return f;
};

export const inPolygon = (p: Position, g: Geometry) => turf.booleanPointInPolygon(p, g as Polygon);

/** Names of features, nearest first, with their distances to a geometry. */
export function nearestFirst(fs: TownFeature[], to: Geometry): { name: string; d: number }[] {
  return fs.map((f) => ({ name: f.properties['name']!, d: distanceTo(pointOf(f), to) })).sort((a, b) => a.d - b.d);
}
