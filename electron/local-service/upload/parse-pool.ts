import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseUpload } from '../uploads';
import type { ReportState, UploadReport } from './report';
import { UploadSet } from './set';
import type { UploadPart } from './spool';
import { UploadError, type ReadContext, type UploadErrorCode } from './types';

/** A file for a worker to read: by path (it reads the file itself) or its bytes. */
export interface ParseRequest {
  id: number;
  name: string;
  path?: string;
  bytes?: Uint8Array;
  /** Where the worker writes the file's rows. */
  spool: string;
}

export interface ParseAnswer {
  id: number;
  done: true;
  report: ReportState;
  part?: UploadPart;
  error?: { file: string; line: number | null; reason: string; code: UploadErrorCode } | { message: string };
}

/**
 * Files smaller than this are read on the service's thread: a worker's round trip (the file's
 * features copied back, and the first file's worker start, tens of ms) costs more than reading
 * a file this size in slices, which holds the thread a few ms at a time.
 */
export const INLINE_BYTES = 256 * 1024;

/** What `parse` needs besides the file: slices, the name headers, and the folder of its spool (default: the system's). */
export type ParseContext = Pick<ReadContext, 'slice' | 'nameHeaders'> & { spoolDir?: string };

export interface UploadParser {
  /**
   * The features of one file (each `country` left ''), what its reading reported added to
   * `report`; a file that cannot be used throws UploadError as the readers do. A file read on a
   * worker has its rows in a spool file in `ctx.spoolDir`, removed by the set's `dispose()`.
   */
  parse(name: string, from: { path: string } | { bytes: Buffer }, report: UploadReport, ctx: ParseContext): Promise<UploadSet>;
  /** Workers alive now (idle ones are ended after a while). */
  running(): number;
  close(): Promise<void>;
}

export interface UploadParserOptions {
  /** Files read at once (one worker each); default 2, at most one per core beyond the first. */
  workers?: number;
  /** How long an idle worker is kept: the heap of a large file it read is given back when it ends. */
  idleMs?: number;
  /** Told when a worker cannot start or dies (files are then read on the service's thread, or fail). */
  onError: (e: unknown) => void;
}

/**
 * The worker's script: the built one beside the bundle, or the TypeScript source (tests, tsx),
 * which a small CommonJS start registers tsx for. Null when neither is found.
 */
function workerScript(): { file: URL | string; eval?: true; workerData?: unknown } | null {
  const here = import.meta.url;
  if (/\.ts$/.test(here)) {
    // A worker of a test runner's process has no TypeScript loader: tsx's is registered first, by
    // the ES build of its API (`tsx/esm/api` under the import condition; its own loader entry
    // registers only on a main thread before Node 22).
    const tsx = pathToFileURL(join(dirname(createRequire(here).resolve('tsx/esm')), 'api', 'index.mjs')).href;
    const file = new URL('./parse-worker.ts', here).href;
    return { eval: true, workerData: { tsx, file }, file: "const { workerData: w } = require('node:worker_threads'); import(w.tsx).then((t) => { t.register(); return import(w.file); });" };
  }
  // Built: an entry of its own (electron.vite.config.ts) beside the service's, whichever chunk holds this code.
  for (const rel of ['./upload-parse-worker.js', '../upload-parse-worker.js']) {
    const u = new URL(rel, here);
    if (existsSync(fileURLToPath(u))) return { file: u };
  }
  return null;
}

type Done = ParseAnswer;

interface Job {
  req: ParseRequest;
  transfer: ArrayBuffer[];
  /** The worker's last answer, or why there was none. */
  settle: (a: Done | Error) => void;
}

/**
 * Reads uploaded files on worker threads, so that parsing a large file (a 200,000-feature
 * GeoJSON is one JSON.parse of seconds; checking a polygon of a million vertices as long) never
 * holds the service's thread. The pool is small and its queue shared by every request: how many
 * files are parsed at once, and so how much memory parsing takes, is bounded whatever the upload
 * budget lets in. A worker writes the rows to a spool file and sends back typed arrays only
 * (positions, geometry types, offsets: 33 bytes a row), so no row is ever an object here.
 */
export function createUploadParser(opts: UploadParserOptions): UploadParser {
  const size = Math.max(1, opts.workers ?? Math.min(2, Math.max(1, availableParallelism() - 1)));
  const script = workerScript();
  let broken = script === null;
  if (broken) opts.onError(new Error('the upload parsing worker script was not found; files are read on the request thread'));
  const all = new Set<Worker>();
  const idle: Worker[] = [];
  const busy = new Map<Worker, Job>();
  const queue: Job[] = [];
  let next = 0;
  let closed = false;
  let retire: NodeJS.Timeout | null = null;
  let worked = false;

  const spawn = (): Worker | null => {
    let w: Worker;
    try {
      w = new Worker(script!.file, { eval: script!.eval, workerData: script!.workerData });
    } catch (e) {
      broken = true;
      opts.onError(e);
      return null;
    }
    all.add(w);
    w.on('message', (m: ParseAnswer) => {
      worked = true;
      const job = busy.get(w);
      if (!job || m.id !== job.req.id) return;
      busy.delete(w);
      idle.push(w);
      job.settle(m);
      pump();
    });
    const lost = (e: Error) => {
      if (!all.delete(w)) return;
      // A worker that dies before any worker ever answered will not start at all: files are read here from now on.
      if (!worked) broken = true;
      const i = idle.indexOf(w);
      if (i >= 0) idle.splice(i, 1);
      const job = busy.get(w);
      busy.delete(w);
      if (!closed) opts.onError(e);
      job?.settle(e);
      pump();
    };
    w.on('error', lost);
    w.on('exit', (code) => lost(new Error(`upload parsing worker exited with code ${code}`)));
    return w;
  };

  const pump = () => {
    if (retire && queue.length) {
      clearTimeout(retire);
      retire = null;
    }
    while (queue.length && !closed) {
      let w = idle.pop();
      if (!w && all.size < size) w = spawn() ?? undefined;
      if (!w) break;
      const job = queue.shift()!;
      busy.set(w, job);
      w.ref();
      w.postMessage(job.req, job.transfer);
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
      }, opts.idleMs ?? 10_000);
      retire.unref();
    }
  };

  const inline = async (name: string, from: { path: string } | { bytes: Buffer }, report: UploadReport, ctx: ParseContext) =>
    UploadSet.of(await parseUpload(name, { countryAt: () => '', report, slice: ctx.slice, nameHeaders: ctx.nameHeaders }, 'bytes' in from ? from.bytes : await readFile(from.path)));

  return {
    async parse(name, from, report, ctx) {
      const bytes = 'bytes' in from ? from.bytes.length : (await stat(from.path)).size;
      if (closed || broken || bytes < INLINE_BYTES) return inline(name, from, report, ctx);
      const ask = () => {
        const req: ParseRequest = { id: next++, name, spool: join(ctx.spoolDir ?? tmpdir(), `upload-rows-${randomUUID()}`) };
        const transfer: ArrayBuffer[] = [];
        if ('bytes' in from) {
          // A copy is sent (transferred): a Buffer may be a view of a pool other code still uses.
          const copy = new Uint8Array(from.bytes);
          req.bytes = copy;
          transfer.push(copy.buffer);
        } else req.path = from.path;
        const job: Job = { req, transfer, settle: () => {} };
        return new Promise<Done | Error>((settle) => {
          job.settle = (a) => {
            // A worker that died under the file leaves what it had written.
            if (a instanceof Error) rmSync(req.spool, { force: true });
            settle(a);
          };
          queue.push(job);
          pump();
        });
      };
      let answer = await ask();
      // A worker that died under this file (ended from outside, or its thread failed) gets one more try on a new one.
      if (answer instanceof Error && !broken && !closed) answer = await ask();
      if (answer instanceof Error) {
        // No worker could start (or none ever answered): read here, as the point index does.
        if (broken && !closed) return inline(name, from, report, ctx);
        throw answer;
      }
      report.merge(answer.report);
      const err = answer.error;
      if (err) throw 'reason' in err ? new UploadError(err.file, err.line, err.reason, err.code) : new Error(err.message);
      return UploadSet.fromPart(answer.part!);
    },
    running: () => all.size,
    async close() {
      closed = true;
      if (retire) clearTimeout(retire);
      for (const job of queue.splice(0)) job.settle(new Error('the upload parser closed'));
      await Promise.all([...all].map((w) => w.terminate()));
      all.clear();
      idle.length = 0;
    },
  };
}
