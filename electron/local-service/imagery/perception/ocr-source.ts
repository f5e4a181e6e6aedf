/**
 * Text in photos, for the detector worker (appended to its source; its requests ask with `text`):
 * PaddleOCR's PP-OCRv4 detection and recognition models on onnxruntime-node's CPU provider.
 * Detection: the image at most 640 px on its longer side (sides multiples of 32), BGR normalized
 * as Paddle trained it, a probability map thresholded at 0.3, each connected region's box kept
 * when its mean probability passes 0.6 and grown as Paddle's "unclip" grows it (area x 1.5 /
 * perimeter). Recognition: each box 48 px high, greedy CTC over the character list.
 *
 * workerData.ocr: { ort (module path), det, rec (model paths), keys (the character list's text) }.
 * readText(img) -> [{ text, score, box }] with box = [x, y, w, h] in the image's pixels.
 */
export const OCR_WORKER = `
// The detection map's longer side: its activations grow with its area and were most of the
// worker's memory at 960 px; signs and captions of a photo are still read at 640.
const OCR_SIDE = 640;
let ocrReady = null;
function ocrModels() {
  ocrReady = ocrReady || (async () => {
    const ort = require(workerData.ocr.ort);
    // One thread (the worker is the parallelism); no arena, which kept the largest input's memory.
    const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false, enableMemPattern: false };
    const chars = workerData.ocr.keys.split(/\\r?\\n/).filter((l, i, a) => i < a.length - 1 || l);
    return {
      ort,
      det: await ort.InferenceSession.create(workerData.ocr.det, opts),
      rec: await ort.InferenceSession.create(workerData.ocr.rec, opts),
      chars: ['', ...chars, ' '],
    };
  })();
  return ocrReady;
}

// Bilinear resize of (sx, sy, sw, sh) of packed RGB into w x h planar BGR floats, (v/255 - mean)/std.
function planarBgr(img, sx, sy, sw, sh, w, h, mean, std) {
  const out = new Float32Array(3 * w * h);
  for (let y = 0; y < h; y++) {
    const fy = sy + Math.min(sh - 1, Math.max(0, (y + 0.5) * sh / h - 0.5));
    const y0 = Math.floor(fy), y1 = Math.min(sy + sh - 1, y0 + 1), wy = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = sx + Math.min(sw - 1, Math.max(0, (x + 0.5) * sw / w - 0.5));
      const x0 = Math.floor(fx), x1 = Math.min(sx + sw - 1, x0 + 1), wx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const at = (xx, yy) => img.data[(yy * img.width + xx) * 3 + (2 - c)];
        const v = (at(x0, y0) * (1 - wx) + at(x1, y0) * wx) * (1 - wy) + (at(x0, y1) * (1 - wx) + at(x1, y1) * wx) * wy;
        out[c * w * h + y * w + x] = (v / 255 - mean[c]) / std[c];
      }
    }
  }
  return out;
}

async function readText(img) {
  const m = await ocrModels();
  const scale = Math.min(1, OCR_SIDE / Math.max(img.width, img.height));
  const W = Math.max(32, Math.round(img.width * scale / 32) * 32), H = Math.max(32, Math.round(img.height * scale / 32) * 32);
  const input = planarBgr(img, 0, 0, img.width, img.height, W, H, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
  const detOut = await m.det.run({ [m.det.inputNames[0]]: new m.ort.Tensor('float32', input, [1, 3, H, W]) });
  const prob = detOut[m.det.outputNames[0]].data;
  // Detection map pixels per image pixel.
  const sx = W / img.width, sy = H / img.height;
  const seen = new Uint8Array(W * H);
  const boxes = [];
  const stack = [];
  for (let start = 0; start < W * H; start++) {
    if (seen[start] || prob[start] <= 0.3) continue;
    let minX = W, minY = H, maxX = 0, maxY = 0, sum = 0, n = 0;
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop(), x = p % W, y = (p - x) / W;
      sum += prob[p]; n++;
      if (x < minX) minX = x; if (x > maxX) maxX = x; if (y < minY) minY = y; if (y > maxY) maxY = y;
      for (const q of [x > 0 ? p - 1 : -1, x < W - 1 ? p + 1 : -1, y > 0 ? p - W : -1, y < H - 1 ? p + W : -1])
        if (q >= 0 && !seen[q] && prob[q] > 0.3) { seen[q] = 1; stack.push(q); }
    }
    const bw = maxX - minX + 1, bh = maxY - minY + 1;
    if (Math.min(bw, bh) < 3 || sum / n < 0.6) continue;
    const grow = (bw * bh * 1.5) / (2 * (bw + bh));
    const x0 = Math.max(0, (minX - grow) / sx), y0 = Math.max(0, (minY - grow) / sy);
    const x1 = Math.min(img.width, (maxX + 1 + grow) / sx), y1 = Math.min(img.height, (maxY + 1 + grow) / sy);
    boxes.push([Math.floor(x0), Math.floor(y0), Math.ceil(x1 - x0), Math.ceil(y1 - y0)]);
  }
  const lines = [];
  for (const b of boxes.slice(0, 50)) {
    if (b[2] < 4 || b[3] < 4) continue;
    const h = 48, w = Math.max(16, Math.min(1600, Math.ceil(h * b[2] / b[3])));
    const x = planarBgr(img, b[0], b[1], b[2], b[3], w, h, [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]);
    const out = (await m.rec.run({ [m.rec.inputNames[0]]: new m.ort.Tensor('float32', x, [1, 3, h, w]) }))[m.rec.outputNames[0]];
    const [, steps, classes] = out.dims;
    let text = '', last = 0, total = 0, count = 0;
    for (let t = 0; t < steps; t++) {
      let best = 0, bestP = -1;
      for (let k = 0; k < classes; k++) { const p = out.data[t * classes + k]; if (p > bestP) { bestP = p; best = k; } }
      if (best !== 0 && best !== last) { text += m.chars[best] || ''; total += bestP; count++; }
      last = best;
    }
    text = text.trim();
    if (text && count && total / count >= 0.5) lines.push({ text, score: Math.round(total / count * 1000) / 1000, box: b });
  }
  return lines;
}
`;
