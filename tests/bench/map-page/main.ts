// The map benchmark's page: the app's own map classes, fed a result set held in memory the way
// a store holds a cached response, timed from handing it over to the first complete frame.
import { transformExtent } from 'ol/proj';
import type OlMap from 'ol/Map';
import FieldMap from '../../../renderer/src/map/FieldMap';
import ResultsLayer, { type GeoJsonFeatureCollection } from '../../../renderer/src/map/ResultsLayer';

/** Deterministic points over Europe (mulberry32), with the properties a compute feature carries. */
function points(n: number, seed: number): GeoJsonFeatureCollection {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const features = new Array(n);
  for (let i = 0; i < n; i++)
    features[i] = {
      type: 'Feature',
      id: `p${i}`,
      geometry: { type: 'Point', coordinates: [-10 + 40 * rnd(), 35 + 25 * rnd()] },
      properties: { name: `Point ${i}`, address: '', score: rnd(), distance_meters: 0 },
    };
  return { type: 'FeatureCollection', features };
}

interface Run {
  ms: number;
  mode: string;
  /** Where the time went: the synchronous hand-over, then the wait for the frame. */
  steps: Record<string, number>;
}

/** The next complete frame, or a rejection naming the step if none comes in `ms`. */
function frame(map: OlMap, step: string, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no complete frame ${ms} ms after ${step}`)), ms);
    map.once('rendercomplete', () => {
      clearTimeout(timer);
      resolve();
    });
    map.render();
  });
}

async function run(n: number, webgl: boolean, limitMs: number): Promise<Run> {
  const target = document.getElementById('map')!;
  const m = new FieldMap({ target });
  try {
    m.map.getView().fit(transformExtent([-10, 35, 30, 60], 'EPSG:4326', 'EPSG:3857'));
    await frame(m.map, 'the basemap', limitMs);
    const layer = new ResultsLayer({ name: 'bench', color: '#e8710a', webgl });
    m.addLayer(layer.group);
    await frame(m.map, 'adding the empty layer', limitMs);
    const collection = points(n, 42);
    const t0 = performance.now();
    layer.setFeatures(collection);
    const t1 = performance.now();
    await frame(m.map, `handing over ${n} points`, limitMs);
    const t2 = performance.now();
    const mode = layer.renderMode;
    layer.dispose();
    return { ms: t2 - t0, mode, steps: { set_features_ms: t1 - t0, to_frame_ms: t2 - t1 } };
  } finally {
    m.dispose();
  }
}

(window as unknown as { bench: typeof run }).bench = run;
// The bench runner waits for this before timing anything.
document.title = 'ready';
