import type { Coordinate } from 'ol/coordinate';
import { toLonLat } from 'ol/proj';

/** A map coordinate (EPSG:3857) as the [lon, lat] pair the stores and the service use. */
export function lonLatOf(c: Coordinate): [number, number] {
  const [lon, lat] = toLonLat(c);
  return [lon!, lat!];
}
