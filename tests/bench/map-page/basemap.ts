// The street basemap's part of the map benchmark page: the app's own map classes, with the
// street basemap's tiles asked of the bench runner (which makes them from a layer store).
import type OlMap from 'ol/Map';
import FieldMap from '../../../renderer/src/map/FieldMap';

declare global {
  interface Window {
    /** Exposed by the bench runner: one street tile as base64, made on demand. */
    streetTile: (z: number, x: number, y: number) => Promise<string | null>;
    benchBasemap: typeof firstFrame;
  }
}

function complete(map: OlMap, step: string, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no complete frame ${ms} ms after ${step}`)), ms);
    map.once('rendercomplete', () => {
      clearTimeout(timer);
      resolve();
    });
    map.render();
  });
}

/**
 * From showing the street basemap over a view at `zoom` to its first complete frame: every
 * tile in view asked for, made, read and drawn. Returns the time and the tiles asked for.
 */
async function firstFrame(centre: [number, number], zoom: number, bbox: [number, number, number, number], limitMs: number) {
  const target = document.getElementById('map')!;
  const m = new FieldMap({ target, center: centre, zoom });
  let asked = 0;
  try {
    await complete(m.map, 'the Natural Earth basemap', limitMs);
    const t0 = performance.now();
    m.basemaps.setStreet({
      load: (z, x, y) => {
        asked++;
        return window.streetTile(z, x, y);
      },
      bboxes: [bbox],
    });
    await complete(m.map, 'showing the street basemap', limitMs);
    return { ms: performance.now() - t0, tiles: asked };
  } finally {
    m.dispose();
  }
}

window.benchBasemap = firstFrame;
