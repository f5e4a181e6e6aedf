// The map benchmark's page: the app's own map classes, fed a result set held in memory the way
// a store holds a cached response, timed from handing it over to the first complete frame.
import { transformExtent } from 'ol/proj';
import type OlMap from 'ol/Map';
import FieldMap from '../../../renderer/src/map/FieldMap';
import ResultsLayer, { type GeoJsonFeatureCollection } from '../../../renderer/src/map/ResultsLayer';
import PointsRenderer from '../../../renderer/src/map/PointsRenderer';
import { buildPointBuffer } from '../../../renderer/src/map/pointBuffer';

/** CPU time in the point renderer's frames since the last reset (for the step breakdown only). */
let pointFramesMs = 0;
const renderFrame = PointsRenderer.prototype.renderFrame;
PointsRenderer.prototype.renderFrame = function (this: PointsRenderer, ...args: Parameters<typeof renderFrame>) {
  const t = performance.now();
  try {
    return renderFrame.apply(this, args);
  } finally {
    pointFramesMs += performance.now() - t;
  }
};

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
  /** Where, in CSS pixels of the page, a sample of the points lies (up to 200, spread over the set). */
  samples: { x: number; y: number }[];
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

/**
 * Waits for the GPU to finish what the frame asked of it: a WebGL call returns once queued, so
 * a one-pixel read from each WebGL canvas of the map is what makes the figure the drawn frame.
 */
function finishGpu(target: HTMLElement): void {
  const pixel = new Uint8Array(4);
  for (const canvas of target.querySelectorAll('canvas')) {
    // getContext gives back the context a layer made (null for a canvas with a 2D one).
    const gl = canvas.getContext('webgl') ?? canvas.getContext('webgl2');
    gl?.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
  }
}

/** Page positions of up to 200 points spread over the set. */
function samplesOf(map: OlMap, target: HTMLElement, collection: GeoJsonFeatureCollection): Run['samples'] {
  const box = target.getBoundingClientRect();
  const features = collection.features;
  const count = Math.min(200, features.length);
  const out: Run['samples'] = [];
  for (let k = 0; k < count; k++) {
    const [lon, lat] = (features[Math.floor((k * features.length) / count)]!.geometry as { coordinates: [number, number] }).coordinates;
    const [x, y] = map.getPixelFromCoordinate(transformExtent([lon, lat, lon, lat], 'EPSG:4326', 'EPSG:3857').slice(0, 2))!;
    out.push({ x: box.left + x!, y: box.top + y! });
  }
  return out;
}

/** Disposes the map of the last run, which stays on screen until the runner has read it back. */
let release: () => void = () => undefined;

async function run(n: number, webgl: boolean, limitMs: number): Promise<Run> {
  release();
  const target = document.getElementById('map')!;
  const m = new FieldMap({ target });
  let kept = false;
  try {
    m.map.getView().fit(transformExtent([-10, 35, 30, 60], 'EPSG:4326', 'EPSG:3857'));
    await frame(m.map, 'the basemap', limitMs);
    const layer = new ResultsLayer({ name: 'bench', color: '#e8710a', webgl });
    m.addLayer(layer.group);
    await frame(m.map, 'adding the empty layer', limitMs);
    const collection = points(n, 42);
    pointFramesMs = 0;
    const t0 = performance.now();
    layer.setFeatures(collection);
    const t1 = performance.now();
    await frame(m.map, `handing over ${n} points`, limitMs);
    const t2 = performance.now();
    finishGpu(target);
    const t3 = performance.now();
    const firstFrameCpu = pointFramesMs;
    const mode = layer.renderMode;
    // Not part of the figure, to see where it goes: the buffer alone, and a frame of the same
    // view drawn again with nothing changed (basemap and points, no hand-over).
    const b0 = performance.now();
    buildPointBuffer(collection);
    const b1 = performance.now();
    pointFramesMs = 0;
    await frame(m.map, 'redrawing', limitMs);
    finishGpu(target);
    const b2 = performance.now();
    kept = true;
    release = () => {
      layer.dispose();
      m.dispose();
      release = () => undefined;
    };
    return {
      ms: t3 - t0,
      mode,
      samples: samplesOf(m.map, target, collection),
      steps: { set_features_ms: t1 - t0, to_frame_ms: t2 - t1, gpu_finish_ms: t3 - t2, of_which_buffer_ms: b1 - b0, point_layer_cpu_ms: firstFrameCpu, redraw_ms: b2 - b1, redraw_point_layer_cpu_ms: pointFramesMs },
    };
  } finally {
    if (!kept) m.dispose();
  }
}

/**
 * Reads a screenshot of the page (PNG bytes, base64) and says how many of `samples` have a pixel
 * of the layer's colour within `reach` pixels, and how many pixels of that colour it holds.
 */
async function drawnIn(png: string, samples: Run['samples'], reach: number): Promise<{ found: number; sampled: number; colourPixels: number }> {
  const img = new Image();
  img.src = `data:image/png;base64,${png}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = img.width;
  canvas.height = img.height;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(img, 0, 0);
  const { data, width, height } = ctx.getImageData(0, 0, img.width, img.height);
  const near = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return false;
    const i = (y * width + x) * 4;
    return Math.abs(data[i]! - 0xe8) <= 40 && Math.abs(data[i + 1]! - 0x71) <= 40 && Math.abs(data[i + 2]! - 0x0a) <= 40;
  };
  let colourPixels = 0;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (near(x, y)) colourPixels++;
  let found = 0;
  for (const s of samples) {
    let hit = false;
    for (let dy = -reach; dy <= reach && !hit; dy++)
      for (let dx = -reach; dx <= reach && !hit; dx++) if (dx * dx + dy * dy <= reach * reach && near(Math.round(s.x) + dx, Math.round(s.y) + dy)) hit = true;
    if (hit) found++;
  }
  return { found, sampled: samples.length, colourPixels };
}

(window as unknown as { bench: typeof run; drawnIn: typeof drawnIn }).bench = run;
(window as unknown as { drawnIn: typeof drawnIn }).drawnIn = drawnIn;
// The bench runner waits for this before timing anything.
document.title = 'ready';
