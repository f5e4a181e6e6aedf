import TileLayer from 'ol/layer/Tile';
import OSM, { ATTRIBUTION } from 'ol/source/OSM';

/** The one tile host the page may fetch from; the CSP in renderer/index.html names it alone. */
export const ONLINE_TILE_HOST = 'https://tile.openstreetmap.org';
/**
 * The online layer draws on a canvas of its own under this class, so the dark theme can invert
 * its colours with a CSS filter (OSM serves no dark tiles) without touching the layers above.
 */
export const ONLINE_TILES_CLASS = 'basemap-online';

/**
 * OpenStreetMap's standard tiles, over the offline basemap. Made only when the user chose it and
 * the machine is online, so an offline or undecided app sends nothing anywhere.
 */
export function createOnlineBasemap(onError: () => void): TileLayer<OSM> {
  const source = new OSM({
    url: `${ONLINE_TILE_HOST}/{z}/{x}/{y}.png`,
    attributions: ATTRIBUTION,
    // OSM's tile policy asks for a referrer-free, cache-friendly client; no more than it serves.
    maxZoom: 19,
  });
  let reported = false;
  source.on('tileloaderror', () => {
    if (reported) return;
    reported = true;
    onError();
  });
  return new TileLayer({ source, className: ONLINE_TILES_CLASS, properties: { name: 'basemap-online' } });
}
