/**
 * The detector's worker thread: plain CommonJS evaluated in place (like the point indexer), so
 * it runs unchanged under tsx, vitest and the built service. It decodes a JPEG with jpeg-js,
 * area-averages it down to the model's input (a 26 MP photo never reaches the model whole),
 * cuts panoramas into overlapping square tiles (a 10,000 px strip shrunk whole shows nothing),
 * runs NanoDet and BlazeFace on the TensorFlow.js WebAssembly backend, and answers boxes in the
 * photo's pixels. Models arrive as bytes (tf.io.fromMemory): nothing is fetched.
 *
 * workerData: { modules: {core, converter, wasm, jpeg}, wasmDir, nice, detector, faces, plates } where each model
 * is { graph (JSON text), weights (ArrayBuffer), inputSize, minScore, labels? } and plates names the
 * detector's labels of vehicles (they carry number plates).
 * Request { id, path, faces, text } -> { id, width, height, objects: [{label, score, box}], faces: [...],
 * text: [{text, score, box}] (ocr-source.ts, when workerData.ocr is given) } with box = [x, y, w, h];
 * request { id, blur: JPEG bytes, pad, quality, vehicles } -> { id, width, height, bytes (the JPEG with
 * every face found, its box padded, blurred hard, and with `vehicles` every object of a class in
 * workerData.plates too), faces, vehicles };
 * either may answer { id, error }.
 */
export const DETECT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const tf = require(workerData.modules.core);
const converter = require(workerData.modules.converter);
const wasm = require(workerData.modules.wasm);
const jpeg = require(workerData.modules.jpeg);

// This thread's heap is collected after each decode and each photo: decoded pixels and the
// decoder's blocks (about 12 bytes a pixel) live outside the heap, which V8 collects late, and
// the worker crept up photo after photo (70 MB over the sample photos). The flag is on only
// while the function is taken.
const collect = (() => {
  try {
    const v8 = require('node:v8');
    v8.setFlagsFromString('--expose-gc');
    try {
      return require('node:vm').runInNewContext('gc');
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return () => {};
  }
})();

// Below the service's own thread, which answers requests: on Linux a thread has its own nice
// value (os.setPriority takes its id), and the threads it starts later (the text reader's) inherit it.
if (workerData.nice) {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) require('node:os').setPriority(tid, workerData.nice);
  } catch {}
}

async function loadModel(m) {
  const j = JSON.parse(m.graph);
  return converter.loadGraphModel(tf.io.fromMemory({
    modelTopology: j.modelTopology, weightSpecs: j.weightsManifest.flatMap((g) => g.weights),
    weightData: m.weights, format: j.format, generatedBy: j.generatedBy, convertedBy: j.convertedBy,
    signature: j.signature, userDefinedMetadata: j.userDefinedMetadata,
  }));
}

const ready = (async () => {
  wasm.setWasmPaths(workerData.wasmDir);
  await tf.setBackend('wasm');
  await tf.ready();
  return { det: await loadModel(workerData.detector), face: workerData.faces ? await loadModel(workerData.faces) : null };
})();

// Each model's input as its published preprocessing makes it, per channel (v - mean) / std:
// NanoDet (nanodet-m.yml / mmdet img_norm_cfg): BGR, mean [103.53, 116.28, 123.675], std
// [57.375, 57.12, 58.395], planar; BlazeFace (MediaPipe): RGB scaled to [-1, 1], packed.
const NANODET_INPUT = { mean: [103.53, 116.28, 123.675], std: [57.375, 57.12, 58.395], bgr: true, chw: true };
const BLAZEFACE_INPUT = { mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5], bgr: false, chw: false };

// Area average of the region (sx, sy, sw, sh) of an RGB image into size x size floats, normalised
// per channel as \`norm\` says (channel order, mean, std, planar or packed).
function sample(img, sx, sy, sw, sh, size, norm) {
  const out = new Float32Array(size * size * 3);
  const fx = sw / size, fy = sh / size;
  const { mean, std } = norm;
  const order = norm.bgr ? [2, 1, 0] : [0, 1, 2];
  const px = [0, 0, 0];
  for (let oy = 0; oy < size; oy++) {
    const y0 = sy + Math.floor(oy * fy), y1 = Math.max(y0 + 1, sy + Math.floor((oy + 1) * fy));
    for (let ox = 0; ox < size; ox++) {
      const x0 = sx + Math.floor(ox * fx), x1 = Math.max(x0 + 1, sx + Math.floor((ox + 1) * fx));
      let r = 0, g = 0, b = 0, n = 0;
      for (let y = y0; y < y1 && y < img.height; y++) {
        let p = (y * img.width + x0) * 3;
        for (let x = x0; x < x1 && x < img.width; x++, p += 3) { r += img.data[p]; g += img.data[p + 1]; b += img.data[p + 2]; n++; }
      }
      n = n || 1;
      px[0] = r / n; px[1] = g / n; px[2] = b / n;
      const o = oy * size + ox;
      for (let c = 0; c < 3; c++) {
        const v = (px[order[c]] - mean[c]) / std[c];
        if (norm.chw) out[c * size * size + o] = v; else out[o * 3 + c] = v;
      }
    }
  }
  return out;
}

// Square tiles with a quarter's overlap along the long side of a panorama; one tile otherwise.
function tiles(w, h) {
  if (w <= 2 * h && h <= 2 * w) return [[0, 0, w, h]];
  const side = Math.min(w, h), long = Math.max(w, h);
  const n = Math.ceil((long - side) / (side * 0.75)) + 1;
  const step = (long - side) / (n - 1);
  const out = [];
  for (let i = 0; i < n; i++) {
    const at = Math.round(i * step);
    out.push(w > h ? [at, 0, side, side] : [0, at, side, side]);
  }
  return out;
}

function iou(a, b) {
  const x0 = Math.max(a[0], b[0]), y0 = Math.max(a[1], b[1]);
  const x1 = Math.min(a[0] + a[2], b[0] + b[2]), y1 = Math.min(a[1] + a[3], b[1] + b[3]);
  const inter = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  return inter / (a[2] * a[3] + b[2] * b[3] - inter || 1);
}

// Greedy non-maximum suppression within each label.
function nms(list, threshold, max) {
  list.sort((a, b) => b.score - a.score);
  const kept = [];
  for (const d of list) {
    if (kept.length >= max) break;
    if (!kept.some((k) => k.label === d.label && iou(k.box, d.box) > threshold)) kept.push(d);
  }
  return kept;
}

// NanoDet (GFL head): per level, class scores and 4 x bins distance distributions; the distance is
// the expectation of the softmax over the bins, in cells of that level.
async function detectObjects(model, img, tile, m) {
  const size = m.inputSize;
  const input = tf.tensor4d(sample(img, tile[0], tile[1], tile[2], tile[3], size, NANODET_INPUT), [1, 3, size, size]);
  const outs = model.execute(input);
  input.dispose();
  const found = [];
  const nClasses = m.labels.length;
  const byLen = new Map();
  for (const t of outs) {
    const key = t.shape[1];
    const e = byLen.get(key) || {};
    if (t.shape[2] === nClasses) e.scores = t; else e.dist = t;
    byLen.set(key, e);
  }
  for (const [cells, { scores, dist }] of byLen) {
    if (!scores || !dist) continue;
    const grid = Math.round(Math.sqrt(cells));
    const bins = dist.shape[2] / 4;
    const s = await scores.data(), d = await dist.data();
    for (let i = 0; i < cells; i++) {
      let best = -1, bestScore = m.minScore;
      for (let c = 0; c < nClasses; c++) if (s[i * nClasses + c] > bestScore) { bestScore = s[i * nClasses + c]; best = c; }
      if (best < 0) continue;
      const side = [];
      for (let k = 0; k < 4; k++) {
        const o = i * dist.shape[2] + k * bins;
        let mx = -Infinity;
        for (let b = 0; b < bins; b++) mx = Math.max(mx, d[o + b]);
        let sum = 0, ex = 0;
        for (let b = 0; b < bins; b++) { const e = Math.exp(d[o + b] - mx); sum += e; ex += e * b; }
        side.push(ex / sum / grid);
      }
      const cx = ((i % grid) + 0.5) / grid, cy = (Math.floor(i / grid) + 0.5) / grid;
      const x0 = Math.max(0, cx - side[0]), y0 = Math.max(0, cy - side[1]);
      const x1 = Math.min(1, cx + side[2]), y1 = Math.min(1, cy + side[3]);
      found.push({ label: m.labels[best], score: bestScore,
        box: [tile[0] + x0 * tile[2], tile[1] + y0 * tile[3], (x1 - x0) * tile[2], (y1 - y0) * tile[3]] });
    }
  }
  for (const t of outs) t.dispose();
  return found;
}

// BlazeFace (back camera, 256 px): 896 anchors on 16x16 (2 each) and 8x8 (6 each) grids.
function anchors(size) {
  const out = [];
  for (const [stride, n] of [[16, 2], [32, 6]]) {
    const g = Math.ceil(size / stride);
    for (let y = 0; y < g; y++) for (let x = 0; x < g; x++) for (let k = 0; k < n; k++) out.push([(x + 0.5) * stride, (y + 0.5) * stride]);
  }
  return out;
}
let faceAnchors = null;
async function detectFaces(model, img, tile, m, minScore) {
  const size = m.inputSize;
  faceAnchors = faceAnchors || anchors(size);
  const input = tf.tensor4d(sample(img, tile[0], tile[1], tile[2], tile[3], size, BLAZEFACE_INPUT), [1, size, size, 3]);
  let res = model.execute(input);
  input.dispose();
  const parts = Array.isArray(res) ? res : [res];
  // The converted graph answers per grid: (512 regressors, 384 regressors, 512 scores, 384 scores).
  const sorted = [...parts].sort((a, b) => a.size - b.size);
  let rows;
  if (parts.length === 4) {
    const small = tf.concat([sorted[0], sorted[2]], 2), big = tf.concat([sorted[1], sorted[3]], 2);
    const all = tf.concat([big, small], 1);
    rows = { data: await all.data(), width: all.shape[2] };
    small.dispose(); big.dispose(); all.dispose();
  } else rows = { data: await parts[0].data(), width: parts[0].shape[2] };
  for (const t of parts) t.dispose();
  const found = [];
  for (let i = 0; i < faceAnchors.length; i++) {
    const o = i * rows.width;
    const score = 1 / (1 + Math.exp(-rows.data[o]));
    if (score < minScore) continue;
    const cx = rows.data[o + 1] + faceAnchors[i][0], cy = rows.data[o + 2] + faceAnchors[i][1];
    const w = rows.data[o + 3], h = rows.data[o + 4];
    const sx = tile[2] / size, sy = tile[3] / size;
    // Landmarks (right eye, left eye, nose, mouth, ears) as anchor offsets: a face has its mouth in
    // the lower half of its box, well below its eyes; a texture scoring as a face rarely does.
    const top = cy - h / 2, at = (k) => (rows.data[o + 6 + 2 * k] + faceAnchors[i][1] - top) / h;
    if (at(3) < 0.5 || at(3) - (at(0) + at(1)) / 2 < 0.25) continue;
    found.push({ label: 'face', score, box: [tile[0] + (cx - w / 2) * sx, tile[1] + (cy - h / 2) * sy, w * sx, h * sy] });
  }
  return found;
}

// Each region is blurred hard: three box blurs (close to a Gaussian) of a radius of a sixth of its
// side, each a running sum along rows then columns; what it showed is no longer readable.
function hide(img, regions) {
  for (const { x0, y0, x1, y1, r } of regions) {
    const w = x1 - x0, h = y1 - y0;
    if (w <= 0 || h <= 0) continue;
    for (let c = 0; c < 3; c++) {
      let buf = new Float32Array(w * h);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) buf[y * w + x] = img.data[((y0 + y) * img.width + x0 + x) * 4 + c];
      for (let pass = 0; pass < 3; pass++) {
        for (const [n, m, at] of [[w, h, (i, j) => j * w + i], [h, w, (i, j) => i * w + j]]) {
          const line = new Float32Array(n);
          for (let j = 0; j < m; j++) {
            for (let i = 0; i < n; i++) line[i] = buf[at(i, j)];
            let sum = 0;
            for (let k = -r; k <= r; k++) sum += line[Math.min(n - 1, Math.max(0, k))];
            for (let i = 0; i < n; i++) {
              buf[at(i, j)] = sum / (2 * r + 1);
              sum += line[Math.min(n - 1, i + r + 1)] - line[Math.max(0, i - r)];
            }
          }
        }
      }
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) img.data[((y0 + y) * img.width + x0 + x) * 4 + c] = buf[y * w + x];
    }
  }
}

// A face box padded into a square of pad times its longer side (face boxes hug the eyes and mouth).
// The padding stops at half the image's shorter side (never below the box itself): a close-up
// face is hidden by its own box, and no face, real or a cat's, blurs the whole image.
function faceRegion(img, b, pad) {
  const long = Math.max(b[2], b[3]);
  const side = Math.max(long, Math.min(long * pad, Math.min(img.width, img.height) / 2));
  const x0 = Math.max(0, Math.floor(b[0] + b[2] / 2 - side / 2)), y0 = Math.max(0, Math.floor(b[1] + b[3] / 2 - side / 2));
  return { x0, y0, x1: Math.min(img.width, Math.ceil(x0 + side)), y1: Math.min(img.height, Math.ceil(y0 + side)), r: Math.max(2, Math.round(side / 6)) };
}

// Where a vehicle's number plates are, without a plate detector: the lower 60% of its box, its
// whole width, a twentieth wider each side. Seen from behind or in front the plate sits between
// 45% and 95% of the box's height (bumper, boot lid); seen from the side or at an angle it is at
// one end of that band. The vehicle's roof and windows stay visible.
const PLATE_BAND = 0.4;
function plateRegion(img, b) {
  const x0 = Math.max(0, Math.floor(b[0] - b[2] * 0.05)), y0 = Math.max(0, Math.floor(b[1] + b[3] * PLATE_BAND));
  const x1 = Math.min(img.width, Math.ceil(b[0] + b[2] * 1.05)), y1 = Math.min(img.height, Math.ceil(b[1] + b[3] * 1.05));
  return { x0, y0, x1, y1, r: Math.max(2, Math.round(Math.min(x1 - x0, y1 - y0) / 6)) };
}

async function findObjects(det, img) {
  const found = [];
  for (const tile of tiles(img.width, img.height)) found.push(...await detectObjects(det, img, tile, workerData.detector));
  return nms(found, 0.5, 100);
}

// Square tiles of \`side\` covering the image, neighbours overlapping by a quarter of a side.
function grid(w, h, side) {
  const along = (len) => {
    if (len <= side) return [0];
    const n = Math.ceil((len - side) / (side * 0.75)) + 1, step = (len - side) / (n - 1);
    return Array.from({ length: n }, (_, i) => Math.round(i * step));
  };
  const out = [];
  for (const y of along(h)) for (const x of along(w)) out.push([x, y, Math.min(side, w), Math.min(side, h)]);
  return out;
}

// Where faces are looked for: the whole photo (or a panorama's tiles), and with \`levels\`, tiles
// of a half, a quarter… of its shorter side, down to FACE_TILE_MIN px: a face a thirtieth of a
// group photo's width is a few pixels in the 256 px the model sees of the whole.
const FACE_TILE_MIN = 256;
const FACE_LEVELS = 2;
function faceTiles(w, h, levels, whole) {
  const out = [...whole];
  let side = Math.min(w, h);
  for (let k = 0; k < levels; k++) {
    side = Math.round(side / 2);
    if (side < FACE_TILE_MIN) break;
    out.push(...grid(w, h, side));
  }
  return out;
}

// Faces found in several tiles, or cut by a tile's edge: a box mostly inside a better one is the same face.
function mergeFaces(list) {
  list.sort((a, b) => b.score - a.score);
  const kept = [];
  for (const d of list) {
    const inside = (k) => {
      const w = Math.min(k.box[0] + k.box[2], d.box[0] + d.box[2]) - Math.max(k.box[0], d.box[0]);
      const h = Math.min(k.box[1] + k.box[3], d.box[1] + d.box[3]) - Math.max(k.box[1], d.box[1]);
      return (Math.max(0, w) * Math.max(0, h)) / Math.min(k.box[2] * k.box[3], d.box[2] * d.box[3] || 1) > 0.5;
    };
    if (!kept.some((k) => iou(k.box, d.box) > 0.3 || inside(k))) kept.push(d);
    if (kept.length >= 200) break;
  }
  return kept;
}

// A tile shows the model textures closer than the whole photo does (bark, a chimney, a circuit
// board), and it takes more of them for faces: a face found only in a tile must score higher.
const TILE_FACE_SCORE = 0.7;
async function findFaces(face, img, levels) {
  const found = [];
  const whole = tiles(img.width, img.height);
  for (const tile of faceTiles(img.width, img.height, levels, whole)) {
    const min = whole.includes(tile) ? workerData.faces.minScore : Math.max(workerData.faces.minScore, TILE_FACE_SCORE);
    found.push(...await detectFaces(face, img, tile, workerData.faces, min));
  }
  return mergeFaces(found);
}

async function blur(id, bytes, pad, quality, vehicles) {
  const { det, face } = await ready;
  const rgba = jpeg.decode(Buffer.from(bytes), { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 200, maxMemoryUsageInMB: 1024 });
  // The detectors read packed RGB.
  const rgb = new Uint8Array(rgba.width * rgba.height * 3);
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) { rgb[i] = rgba.data[j]; rgb[i + 1] = rgba.data[j + 1]; rgb[i + 2] = rgba.data[j + 2]; }
  const img = { width: rgba.width, height: rgba.height, data: rgb };
  const faces = await findFaces(face, img, FACE_LEVELS);
  const plated = vehicles ? (await findObjects(det, img)).filter((d) => workerData.plates.includes(d.label)) : [];
  hide(rgba, [...faces.map((f) => faceRegion(rgba, f.box, pad)), ...plated.map((v) => plateRegion(rgba, v.box))]);
  const out = jpeg.encode({ width: rgba.width, height: rgba.height, data: rgba.data }, quality).data;
  const copy = new Uint8Array(out);
  parentPort.postMessage({ id, width: rgba.width, height: rgba.height, bytes: copy, faces: faces.map(round), vehicles: plated.map(round) }, [copy.buffer]);
}

const round = (d) => ({ label: d.label, score: Math.round(d.score * 1000) / 1000, box: d.box.map((v) => Math.round(v)) });

parentPort.on('message', async ({ id, path, bytes, objects: wantObjects = true, faces, text, blur: toBlur, pad, quality, vehicles }) => {
  try {
    if (toBlur) return await blur(id, toBlur, pad, quality, vehicles);
    const { det, face } = await ready;
    const img = jpeg.decode(bytes ?? fs.readFileSync(path), { useTArray: true, formatAsRGBA: false, maxResolutionInMP: 200, maxMemoryUsageInMB: 1024 });
    collect();
    const objects = wantObjects ? (await findObjects(det, img)).map(round) : [];
    const faceList = faces && face ? (await findFaces(face, img, 0)).map(round) : [];
    const lines = text && workerData.ocr ? await readText(img) : [];
    parentPort.postMessage({ id, width: img.width, height: img.height, objects, faces: faceList, text: lines });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  } finally {
    collect();
  }
});
`;
