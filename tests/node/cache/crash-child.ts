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
  const id = cache.storeCompute(
    { profileId: 'crash', request: { query: fx.body.query, limit: 2000 }, startedAt: Date.now(), finishedAt: Date.now() },
    fx.body,
    fx.raw,
  );
  if (n === 0) process.stdout.write('ready\n');
  // Deleting older queries keeps the file small and puts deletes among the crash points too.
  cache.delete(id - 3);
  n++;
}
