/**
 * A parsing worker's thread (see parse-pool.ts): reads one file at a time, by path or from the
 * bytes it is sent, and answers its features in batches, then what its report holds. Nothing
 * here waits for other requests: the thread is its own.
 */
import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { parseUpload } from '../uploads';
import { loadNameHeaders } from '../vocabulary/header-words';
import { UploadReport } from './report';
import { UploadError, type UploadFeature } from './types';
import type { ParseAnswer, ParseRequest } from './parse-pool';

/**
 * A full collection of this thread's heap, run after each file: the text, the parser's pieces and
 * the features sent are garbage by then, and V8 would otherwise keep the pages of a 20 MiB file's
 * parse (hundreds of MB) until the worker ends. The flag is on only while the function is taken,
 * as in the photo detector's worker.
 */
const collect = (() => {
  try {
    setFlagsFromString('--expose-gc');
    try {
      return runInNewContext('gc') as () => void;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    return () => {};
  }
})();

/** Features per message: each message is read back on the service's thread in one go. */
const BATCH = 2000;
let names: ReadonlySet<string> | undefined;
const never = { due: () => false, pause: async () => {} };

/** The service's word that it took the last batch: the next is sent only then (see parse-pool.ts). */
let taken: (() => void) | null = null;

parentPort!.on('message', async (m: ParseRequest | { taken: number }) => {
  if ('taken' in m) return void taken?.();
  const post = (a: ParseAnswer) => parentPort!.postMessage(a);
  const report = new UploadReport();
  let features: (UploadFeature | null)[] = [];
  try {
    const bytes = m.bytes ? Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength) : await readFile(m.path!);
    features = await parseUpload(m.name, { countryAt: () => '', report, slice: never, nameHeaders: () => (names ??= loadNameHeaders()) }, bytes);
    for (let i = 0; i < features.length; i += BATCH) {
      const next = new Promise<void>((ok) => (taken = ok));
      post({ id: m.id, features: features.slice(i, i + BATCH) as UploadFeature[] });
      // Sent: this thread lets go of them while the rest go out.
      features.fill(null, i, i + BATCH);
      await next;
    }
    post({ id: m.id, done: true, report: report.state() });
  } catch (e) {
    const error =
      e instanceof UploadError
        ? { file: e.file, line: e.line, reason: e.reason, code: e.code }
        : { message: String((e as Error)?.stack ?? e) };
    post({ id: m.id, done: true, report: report.state(), error });
  } finally {
    features = [];
    collect();
  }
});
