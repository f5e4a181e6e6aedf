import { cellToBoundary, getHexagonAreaAvg, latLngToCell, polygonToCells } from 'h3-js';
import type { Coordinate } from 'ol/coordinate';
import { toLonLat } from 'ol/proj';
import { getArea } from 'ol/sphere';
import Polygon from 'ol/geom/Polygon';

/** A drawn polygon filling more cells than this is refused: the request and the map would stall. */
export const MAX_FILL_CELLS = 10_000;

/** The cell under a map position (EPSG:3857) at a resolution. */
export function cellAt(coordinate: Coordinate, resolution: number): string {
  const [lon, lat] = toLonLat(coordinate);
  return latLngToCell(lat!, lon!, resolution);
}

/** A cell's outline as a closed [lon, lat] ring. */
export const cellRing = (id: string): number[][] => cellToBoundary(id, true);

export class TooManyCellsError extends Error {
  constructor(
    readonly estimate: number,
    readonly resolution: number,
  ) {
    super(
      `The polygon would hold about ${estimate.toLocaleString('en')} cells at resolution ${resolution} ` +
        `(at most ${MAX_FILL_CELLS.toLocaleString('en')}); pick a coarser resolution or a smaller area.`,
    );
  }
}

/**
 * The cells whose centres fall inside a polygon drawn on the map (outer ring, EPSG:3857), as
 * h3-js polyfills them. The cell count is estimated from the area first, so a continent at
 * resolution 12 is refused at once instead of freezing the window.
 */
export function cellsInPolygon(ring: readonly Coordinate[], resolution: number): string[] {
  const area = getArea(new Polygon([ring as Coordinate[]]), { projection: 'EPSG:3857' }) / 1e6;
  const estimate = Math.round(area / getHexagonAreaAvg(resolution, 'km2'));
  if (estimate > MAX_FILL_CELLS) throw new TooManyCellsError(estimate, resolution);
  const lonLat = ring.map((c) => toLonLat(c as number[]));
  return polygonToCells([lonLat], resolution, true);
}
