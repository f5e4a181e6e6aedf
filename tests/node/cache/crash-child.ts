// Child process of crash.test.ts: stores large responses (and deletes some) in a loop until killed.
import { Cache } from '../../../electron/cache';
import { computeResponse } from './fixtures';

const file = process.argv[2];
const seed = Number(process.argv[3] ?? 1);
if (!file) throw new Error('usage: crash-child <db> <seed>');

const cache = Cache.open(file);
const fixtures = Array.from({ length: 4 }, (_, i) => computeResponse(2000, seed * 10 + i));
let n = 0;
for (;;) {
  const fx = fixtures[n % fixtures.length]!;
  // Markers around each write let the parent tell whether the kill landed inside one
  // (writes to a pipe are synchronous on Linux, so they are out before the next step).
  process.stdout.write('begin\n');
  const id = cache.storeCompute(
    { profileId: 'crash', request: { query: fx.body.query, limit: 2000 }, startedAt: Date.now(), finishedAt: Date.now() },
    fx.body,
    Buffer.from(fx.raw),
  );
  // Deleting older queries keeps the file small and puts deletes among the crash points too.
  cache.delete(id - 3);
  process.stdout.write(n === 0 ? 'end\nready\n' : 'end\n');
  n++;
}
