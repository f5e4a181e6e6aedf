/**
 * A parsing worker's thread (see parse-pool.ts): reads one file at a time, by path or from the
 * bytes it is sent, writes its features to the spool file it is given as they are read, and
 * answers the file's part (positions and offsets as typed arrays, transferred) and what its
 * report holds. Nothing here waits for other requests: the thread is its own.
 */
import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { parseUpload } from '../uploads';
import { loadNameHeaders } from '../vocabulary/header-words';
import { UploadReport } from './report';
import { partBuffers, SpoolWriter } from './spool';
import { UploadError } from './types';
import type { ParseAnswer, ParseRequest } from './parse-pool';

/**
 * A full collection of this thread's heap, run after each file: the text and the parser's pieces
 * are garbage by then, and V8 would otherwise keep the pages of a 20 MiB file's parse (hundreds
 * of MB) until the worker ends. The flag is on only while the function is taken, as in the photo
 * detector's worker.
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

let names: ReadonlySet<string> | undefined;
const never = { due: () => false, pause: async () => {} };

parentPort!.on('message', async (m: ParseRequest) => {
  const post = (a: ParseAnswer, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(a, transfer);
  const report = new UploadReport();
  let sink: SpoolWriter | null = null;
  try {
    const bytes = m.bytes ? Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength) : await readFile(m.path!);
    sink = new SpoolWriter(m.spool);
    await parseUpload(m.name, { countryAt: () => '', report, slice: never, nameHeaders: () => (names ??= loadNameHeaders()), sink }, bytes);
    const part = sink.finish();
    sink = null;
    post({ id: m.id, done: true, report: report.state(), part }, partBuffers(part));
  } catch (e) {
    sink?.abort();
    const error =
      e instanceof UploadError
        ? { file: e.file, line: e.line, reason: e.reason, code: e.code }
        : { message: String((e as Error)?.stack ?? e) };
    post({ id: m.id, done: true, report: report.state(), error });
  } finally {
    collect();
  }
});
