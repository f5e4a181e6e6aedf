/**
 * A parsing worker's thread (see parse-pool.ts): reads one file at a time, by path or from the
 * bytes it is sent, and answers its features in batches, then what its report holds. Nothing
 * here waits for other requests: the thread is its own.
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { parseUpload } from '../uploads';
import { loadNameHeaders } from '../vocabulary/header-words';
import { UploadReport } from './report';
import { UploadError, type UploadFeature } from './types';
import type { ParseAnswer, ParseRequest } from './parse-pool';

/** Features per message: each message is read back on the service's thread in one go. */
const BATCH = 2000;
let names: ReadonlySet<string> | undefined;
const never = { due: () => false, pause: async () => {} };

parentPort!.on('message', async (m: ParseRequest) => {
  const post = (a: ParseAnswer) => parentPort!.postMessage(a);
  const report = new UploadReport();
  let features: (UploadFeature | null)[] = [];
  try {
    const bytes = m.bytes ? Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength) : await readFile(m.path!);
    features = await parseUpload(m.name, { countryAt: () => '', report, slice: never, nameHeaders: () => (names ??= loadNameHeaders()) }, bytes);
    for (let i = 0; i < features.length; i += BATCH) {
      post({ id: m.id, features: features.slice(i, i + BATCH) as UploadFeature[] });
      // Sent: this thread lets go of them while the rest go out.
      features.fill(null, i, i + BATCH);
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
  }
});
