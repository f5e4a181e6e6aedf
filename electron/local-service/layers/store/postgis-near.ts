import type { Position } from 'geojson';
import { boxesAround } from './geo';

/**
 * The SQL condition that lets a layer's geometry GiST index serve a distance question on the
 * sphere: `geom` meets one of the lon/lat boxes holding every point within `metres` of `p`
 * (two across the antimeridian; boxesAround, the embedded store's own prefilter, so both
 * backends consider the same candidates). The exact ST_DWithin on geography follows it. The
 * box corners are appended to `params`; the condition names them by position.
 */
export function nearBoxes(params: unknown[], p: Position, metres: number): string {
  const add = (v: number) => {
    params.push(v);
    return `$${params.length}`;
  };
  const boxes = boxesAround(p, metres).map(([w, s, e, n]) => `geom && ST_MakeEnvelope(${add(w)}, ${add(s)}, ${add(e)}, ${add(n)}, 4326)`);
  return boxes.length === 1 ? boxes[0]! : `(${boxes.join(' OR ')})`;
}
