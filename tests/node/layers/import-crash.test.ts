import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog, type Catalog } from '../../../electron/local-service/catalog/catalog';
import { reclaimScratchFiles } from '../../../electron/local-service/layers/readers/scratch';
import { createLocalService } from '../../../electron/local-service/server';
import { writeSyntheticGeoJson } from '../../support/synthetic-layer';
import { writeGridTownPbf } from '../../support/town/grid';

/**
 * An OSM import killed with SIGKILL part way (tests/support/crash/layer-import-child.ts) leaves
 * its scratch files in <data>/tmp and the rows it had committed in layers.sqlite. The next start
 * of the service removes the scratch files no live import holds and gives the dropped rows'
 * pages back to the file system: a file made now vacuums incrementally, one made before is
 * vacuumed once. Reduced sizes: a 400,000-node grid town with node locations past 10,000 on disk
 * (a real import keeps 2,000,000 in memory).
 */
const NODES = 400_000;
const MEMORY_NODES = 10_000;
/** Killed once three batches of 10,000 are written (of the town's 60,000 features). */
const KILL_AT = 30_000;
const CHILD = join(import.meta.dirname, '../../support/crash/layer-import-child.ts');
const KEYS = { bearer: 'crash-bearer-01', search: 'crash-search-01' };

let dir: string;
let pbf: string;
let kept: string;
let catalog: Catalog;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-import-crash-'));
  pbf = join(dir, 'town.osm.pbf');
  await writeGridTownPbf(pbf, NODES);
  kept = join(dir, 'kept.geojson');
  writeSyntheticGeoJson(kept, 2_000);
  catalog = loadCatalog(defaultCatalogDir());
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scratchIn = (tempDir: string) => (existsSync(tempDir) ? readdirSync(tempDir).filter((n) => n.startsWith('osm-scratch-')) : []);
const bytesOf = (tempDir: string, names: string[]) => names.reduce((sum, n) => sum + statSync(join(tempDir, n)).size, 0);

/** Starts the import child; resolves once it has written KILL_AT features, with the child still running. */
function startChild(dataDir: string, tempDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, pbf, dataDir, tempDir, String(MEMORY_NODES), String(KILL_AT)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((ok) => child.once('close', (_code, signal) => ok(signal)));
  const ready = new Promise<void>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && ok());
    void exited.then(() => fail(new Error(`import child ended before it was ready: ${stderr}`)));
  });
  return { child, ready, exited };
}

/** Kills the import child with SIGKILL once it has written KILL_AT features. */
async function killMidImport(dataDir: string, tempDir: string) {
  const { child, ready, exited } = startChild(dataDir, tempDir);
  await ready;
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

/** The layers file as a fresh connection sees it; closing it checkpoints the WAL into the file. */
function layersFile(dataDir: string) {
  const file = join(dataDir, 'layers.sqlite');
  const db = new Database(file);
  try {
    const pragma = (p: string) => db.pragma(p, { simple: true }) as number;
    const importing = db.prepare("SELECT id FROM layers WHERE state = 'importing'").pluck().all() as number[];
    const tables = importing.flatMap((n) => [`lf_${n}`, `lm_${n}`]);
    const importingBytes = tables.length ? (db.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${tables.map(() => '?').join(', ')})`).pluck().get(...tables) as number) : 0;
    return { importing: importing.length, importingBytes, freelist: pragma('freelist_count'), autoVacuum: pragma('auto_vacuum'), pageSize: pragma('page_size') };
  } finally {
    db.close();
  }
}
const fileSize = (dataDir: string) => statSync(join(dataDir, 'layers.sqlite')).size + (existsSync(join(dataDir, 'layers.sqlite-wal')) ? statSync(join(dataDir, 'layers.sqlite-wal')).size : 0);

/** Starts and closes the service on the data folder, with a layer it must keep; returns its layer list. */
async function restart(dataDir: string) {
  const logger = createMemoryLogger();
  const service = createLocalService({ dataDir, keys: KEYS, logger, clock: () => new Date(), catalog });
  await service.start();
  try {
    return { layers: (await service.layers.list()).map((l) => [l.name, l.featureCount]), lines: logger.lines };
  } finally {
    await service.close();
  }
}

/** A ready layer, imported before the crash, that every reclaim must leave whole. */
async function keptLayer(dataDir: string) {
  const service = createLocalService({ dataDir, keys: KEYS, logger: createMemoryLogger(), clock: () => new Date(), catalog });
  await service.start();
  try {
    await service.layers.startImport(kept).done;
  } finally {
    await service.close();
  }
}

describe('an OSM import killed part way', () => {
  it('leaves nothing behind after the next start: scratch files removed, the free pages given back', { timeout: 240_000 }, async () => {
    const dataDir = join(dir, 'new-file');
    const tempDir = join(dataDir, 'tmp');
    await keptLayer(dataDir);
    await killMidImport(dataDir, tempDir);
    const left = scratchIn(tempDir);
    // What the kill left: at least the node file past the memory budget.
    expect(left.some((n) => n.endsWith('.sqlite.nodes'))).toBe(true);
    const scratchBytes = bytesOf(tempDir, left);
    const before = layersFile(dataDir);
    expect(before.importing).toBe(1);
    expect(before.importingBytes).toBeGreaterThan(1_000_000);
    const sizeBefore = fileSize(dataDir);

    const { layers } = await restart(dataDir);
    expect(layers).toEqual([['kept', 2_000]]);
    expect(scratchIn(tempDir)).toEqual([]);
    const after = layersFile(dataDir);
    expect(after).toMatchObject({ importing: 0, freelist: 0, autoVacuum: 2 });
    const sizeAfter = fileSize(dataDir);
    process.stdout.write(
      `killed import: scratch ${left.length} files, ${scratchBytes} bytes -> 0; layers.sqlite ${sizeBefore} bytes (killed layer ${before.importingBytes}) -> ${sizeAfter}, freelist ${after.freelist}\n`,
    );
    // The killed layer's pages are gone from the file, not kept as free pages.
    expect(sizeBefore - sizeAfter).toBeGreaterThan(0.9 * before.importingBytes);
  });

  it('a file made before incremental vacuum is vacuumed once, and vacuums incrementally after', { timeout: 240_000 }, async () => {
    const dataDir = join(dir, 'old-file');
    mkdirSync(dataDir, { recursive: true });
    // A file with a table before the store first opens it: its auto_vacuum (none) stays as it was made.
    const old = new Database(join(dataDir, 'layers.sqlite'));
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE made_before (x)');
    old.close();
    await keptLayer(dataDir);
    expect(layersFile(dataDir).autoVacuum).toBe(0);
    await killMidImport(dataDir, join(dataDir, 'tmp'));
    const before = layersFile(dataDir);
    const sizeBefore = fileSize(dataDir);
    expect((await restart(dataDir)).layers).toEqual([['kept', 2_000]]);
    const after = layersFile(dataDir);
    expect(after).toMatchObject({ importing: 0, freelist: 0, autoVacuum: 2 });
    expect(sizeBefore - fileSize(dataDir)).toBeGreaterThan(0.9 * before.importingBytes);
  });

  it("another process's live import keeps its scratch files; once it is killed they go", { timeout: 240_000 }, async () => {
    // Its own data folder (layers.sqlite), the scratch folder shared: two services on one data folder.
    const tempDir = join(dir, 'shared-tmp');
    const { child, ready, exited } = startChild(join(dir, 'live'), tempDir);
    try {
      await ready;
      // Held still, so the check sees it mid-import whatever the machine's speed.
      child.kill('SIGSTOP');
      const live = scratchIn(tempDir);
      expect(live.some((n) => n.endsWith('.sqlite.nodes'))).toBe(true);
      // A dead import's files beside it (this process's kill, of a second child).
      await killMidImport(join(dir, 'dead'), tempDir);
      const dead = scratchIn(tempDir).filter((n) => !live.includes(n));
      expect(dead.length).toBeGreaterThan(0);
      const r = reclaimScratchFiles(tempDir);
      expect(r.files).toBe(dead.length);
      expect(scratchIn(tempDir).sort()).toEqual(live.sort());
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    reclaimScratchFiles(tempDir);
    expect(scratchIn(tempDir)).toEqual([]);
  });
});
