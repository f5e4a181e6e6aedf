// The map benchmark's page: the app's own map classes, fed a result set held in memory the way
// a store holds a cached response, timed from handing it over to the first complete frame.
import { transformExtent } from 'ol/proj';
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
}

async function run(n: number, webgl: boolean): Promise<Run> {
  const target = document.getElementById('map')!;
  const m = new FieldMap({ target });
  m.map.getView().fit(transformExtent([-10, 35, 30, 60], 'EPSG:4326', 'EPSG:3857'));
  await new Promise<void>((resolve) => m.map.once('rendercomplete', () => resolve()));
  const layer = new ResultsLayer({ name: 'bench', color: '#e8710a', webgl });
  m.addLayer(layer.group);
  await new Promise<void>((resolve) => m.map.once('rendercomplete', () => resolve()));
  const collection = points(n, 42);
  const t0 = performance.now();
  layer.setFeatures(collection);
  await new Promise<void>((resolve) => m.map.once('rendercomplete', () => resolve()));
  const ms = performance.now() - t0;
  const mode = layer.renderMode;
  layer.dispose();
  m.dispose();
  return { ms, mode };
}

(window as unknown as { bench: typeof run }).bench = run;
