import type { ComputeFeature } from '../../shared/service/compute';
import { DEFAULT_UNITS, formatLength, type Units } from '../../shared/units';
import type { ExportLayer } from './types';

/** The exported field that says a result's distance as the screen does, in the chosen units. */
export const DISPLAY_DISTANCE = 'distance_display';

/**
 * A result's distance in metres, or null when none was measured: the bundled service marks a
 * measured one with `distance_km`, and a service that does not still sends a positive
 * `distance_meters`.
 */
function measured(p: ComputeFeature['properties']): number | null {
  const m = p.distance_meters;
  if (typeof m !== 'number' || !Number.isFinite(m)) return null;
  return typeof p['distance_km'] === 'number' || m > 0 ? m : null;
}

function withDisplay(f: ComputeFeature, units: Units): ComputeFeature {
  const m = f.properties ? measured(f.properties) : null;
  if (m === null || DISPLAY_DISTANCE in f.properties) return f;
  return { ...f, properties: { ...f.properties, [DISPLAY_DISTANCE]: formatLength(m, units) } };
}

/**
 * Result layers with the display field added to every feature that has a distance;
 * `distance_meters` is kept as it came. A plain iterable stays one, so writers keep their sync path, and each can be read more than once as its source can.
 */
export function withDisplayDistances(layers: ExportLayer[], units: Units = DEFAULT_UNITS): ExportLayer[] {
  return layers.map((layer) => {
    if (layer.kind !== 'compute') return layer;
    const src = layer.features;
    const features =
      Symbol.iterator in src
        ? {
            *[Symbol.iterator]() {
              for (const f of src) yield withDisplay(f, units);
            },
          }
        : {
            async *[Symbol.asyncIterator]() {
              for await (const f of src) yield withDisplay(f, units);
            },
          };
    return { ...layer, features };
  });
}
