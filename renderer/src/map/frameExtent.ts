import type { Extent } from 'ol/extent';
import { createEmpty, extend } from 'ol/extent';
import type Geometry from 'ol/geom/Geometry';
import MultiPolygon from 'ol/geom/MultiPolygon';

/** A part smaller than this share of the feature's largest part is left out of the frame. */
const FRAME_PART_SHARE = 0.2;

/**
 * The extent a fit frames for a geometry: a multi-part area's main parts only, so a country with
 * far-off territories (France with French Guiana and Réunion) frames its mainland, not the ocean
 * between; other geometries frame whole.
 */
export function frameExtent(geom: Geometry): Extent {
  if (!(geom instanceof MultiPolygon)) return geom.getExtent();
  const parts = geom.getPolygons();
  const areas = parts.map((p) => p.getArea());
  const largest = Math.max(...areas);
  const out = createEmpty();
  parts.forEach((p, i) => {
    if (areas[i]! >= largest * FRAME_PART_SHARE) extend(out, p.getExtent());
  });
  return out;
}
