import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Cache, FEATURE_ID_SPAN } from '../../../electron/cache';

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fieldlens-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the ingesting child, waits until it has stored one response, kills it after `delayMs`. */
function runAndKill(file: string, seed: number, delayMs: number): Promise<{ signal: NodeJS.Signals | null; inWrite: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'crash-child.ts'), file, String(seed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const wasReady = stdout.includes('ready');
      stdout += d.toString();
      if (!wasReady && stdout.includes('ready')) setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const markers = stdout.split('\n').filter((l) => l === 'begin' || l === 'end');
      if (signal === 'SIGKILL') resolve({ signal, inWrite: markers.at(-1) === 'begin' });
      else reject(new Error(`child exited on its own (${code}): ${stderr}`));
    });
  });
}

describe('cache crash safety', () => {
  it('survives SIGKILL during ingest 20 times with no partial query visible', async () => {
    const file = join(dir, 'crash.db');
    let seed = 1;
    const stored: number[] = [];
    let killedInWrite = 0;
    for (let round = 0; round < 20; round++) {
      // Random moment in the next few ingests (each takes several ms on this machine).
      const delay = Math.floor(Math.random() * 120);
      const run = await runAndKill(file, seed++, delay);
      expect(run.signal).toBe('SIGKILL');
      if (run.inWrite) killedInWrite++;

      const cache = Cache.open(file);
      try {
        expect(cache.db.pragma('integrity_check', { simple: true })).toBe('ok');
        // The index structures agree with their content too.
        cache.db.exec(`INSERT INTO features_fts (features_fts) VALUES ('integrity-check')`);
        expect(cache.db.prepare(`SELECT rtreecheck('features_rtree')`).pluck().get()).toBe('ok');
        const rows = cache.db
          .prepare(
            `SELECT q.id, q.feature_count AS stored,
               (SELECT count(*) FROM features f WHERE f.id BETWEEN q.id * @span AND q.id * @span + @span - 1) AS actual,
               length(q.raw_response) AS rawLength
             FROM queries q`,
          )
          .all({ span: FEATURE_ID_SPAN }) as { id: number; stored: number; actual: number; rawLength: number }[];
        expect(rows.length).toBeGreaterThan(0);
        for (const r of rows) {
          expect(r.actual, `query ${r.id}`).toBe(r.stored);
          expect(r.stored).toBe(2000);
          expect(r.rawLength).toBeGreaterThan(0);
        }
        // No feature belongs to a query that is not there.
        const orphans = cache.db
          .prepare('SELECT count(*) FROM features WHERE query_id NOT IN (SELECT id FROM queries)')
          .pluck()
          .get();
        expect(orphans).toBe(0);
        stored.push(rows.length);
      } finally {
        cache.close();
      }
    }
    expect(stored).toHaveLength(20);
    // Most of the child's time is spent inside a write transaction, so most kills land there.
    expect(killedInWrite).toBeGreaterThan(0);
    console.log(`killed inside a write in ${killedInWrite} of 20 rounds`);
  }, 240_000);
});
