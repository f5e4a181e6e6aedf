import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLayerFiles } from '../../../electron/local-service/layers/cli-import';
import { openSqliteLayerStore } from '../../../electron/local-service/layers/store/sqlite-layer-store';
import { writeTownFiles, type TownFiles } from '../../support/town/files';

let dir: string;
let town: TownFiles;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-layer-cli-'));
  town = writeTownFiles(join(dir, 'town'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--layer FILE', () => {
  it('imports each file in turn, reports a bad one and goes on', async () => {
    const empty = join(dir, 'empty.gpkg');
    writeFileSync(empty, '');
    const lines: string[] = [];
    const dataDir = join(dir, 'fn');
    const r = await importLayerFiles({ dataDir, files: [empty, town.pbf], log: (l) => lines.push(l) });
    expect(r.failed).toEqual([{ file: empty, message: 'empty.gpkg: the file is empty (0 bytes)' }]);
    expect(r.imported.map((l) => [l.name, l.featureCount])).toEqual([['town', town.features.length]]);
    expect(lines).toContain('layer empty.gpkg: the file is empty (0 bytes)');
    expect(lines.some((l) => /^layer town\.osm\.pbf: \d+ %, \d+ features$/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^layer town\\.osm\\.pbf: imported "town", ${town.features.length} features, [0-9.]+ (MB|kB)$`));
    const store = openSqliteLayerStore({ dataDir });
    expect(store.list().map((l) => l.id)).toEqual([r.imported[0]!.id]);
    store.close();
  });

  it('the stand-alone service imports the layer, then starts', async () => {
    const dataDir = join(dir, 'service');
    const child = spawn(process.execPath, ['--import', 'tsx', 'electron/local-service/cli.ts', '--key', 'k1', '--search-key', 'k2', '--json', '--no-sample', '--data-dir', dataDir, '--layer', town.osm], {
      cwd: join(import.meta.dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    try {
      const urls = await new Promise<{ baseUrl: string }>((ok, fail) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += String(d);
          if (out.includes('\n')) ok(JSON.parse(out.split('\n')[0]!));
        });
        child.on('exit', (code) => fail(new Error(`service exited with ${code}: ${stderr}`)));
      });
      expect(urls.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      expect(stderr).toContain(`layer town.osm: imported "town", ${town.features.length} features`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((ok) => child.once('exit', ok));
    }
    const store = openSqliteLayerStore({ dataDir });
    expect(store.list().map((l) => [l.name, l.format, l.featureCount])).toEqual([['town', 'osm-xml', town.features.length]]);
    store.close();
  }, 60_000);
});
