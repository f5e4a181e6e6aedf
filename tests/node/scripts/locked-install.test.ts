import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What `npm ci` (scripts/setup.sh) must produce: node_modules holds exactly the versions
// package-lock.json names, and the lock names every platform's optional binaries, without which
// `npm ci` refuses it.

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface LockEntry {
  version?: string;
  optional?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
interface Manifest {
  name: string;
  version: string;
  optionalDependencies?: Record<string, string>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const lock = readJson<{ lockfileVersion: number; packages: Record<string, LockEntry> }>(join(root, 'package-lock.json'));
const entries = Object.entries(lock.packages).filter(([path]) => path !== '');

/** Every package directory under node_modules (scoped and nested), as lock-style paths. */
function installedPackages(dir = 'node_modules', found = new Map<string, Manifest>()): Map<string, Manifest> {
  const abs = join(root, dir);
  if (!existsSync(abs)) return found;
  for (const name of readdirSync(abs)) {
    if (name.startsWith('.')) continue; // .bin, .package-lock.json, tool caches
    const names = name.startsWith('@') ? readdirSync(join(abs, name)).map((n) => `${name}/${n}`) : [name];
    for (const pkg of names) {
      const path = `${dir}/${pkg}`;
      const manifest = join(root, path, 'package.json');
      if (!existsSync(manifest)) continue;
      found.set(path, readJson<Manifest>(manifest));
      installedPackages(`${path}/node_modules`, found);
    }
  }
  return found;
}

/** The lock path Node would load `name` from when required inside the package at `from`. */
function resolveInLock(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

const installed = installedPackages();

describe('a fresh install has exactly the locked versions', () => {
  it('reads a lock file of version 3 with its packages', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(entries.length).toBeGreaterThan(500);
    expect(installed.size).toBeGreaterThan(500);
  });

  it('installs every package the lock names, at the locked version', () => {
    const wrong: string[] = [];
    for (const [path, entry] of entries) {
      if (entry.link) continue;
      const got = installed.get(path);
      // Optional packages for another platform are locked but not installed here.
      if (!got) {
        if (!entry.optional) wrong.push(`${path}: locked ${entry.version}, not installed`);
      } else if (got.version !== entry.version) {
        wrong.push(`${path}: locked ${entry.version}, installed ${got.version}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('installs nothing the lock does not name', () => {
    const extra = [...installed.keys()].filter((path) => !lock.packages[path]);
    expect(extra).toEqual([]);
  });

  it("agrees with npm's record of the install (node_modules/.package-lock.json)", () => {
    const record = readJson<{ packages: Record<string, LockEntry> }>(join(root, 'node_modules/.package-lock.json'));
    const recorded = Object.entries(record.packages).filter(([, e]) => !e.link);
    expect(recorded.length).toBeGreaterThan(500);
    const wrong = recorded
      .filter(([path, e]) => lock.packages[path]?.version !== e.version)
      .map(([path, e]) => `${path}: recorded ${e.version}, locked ${lock.packages[path]?.version}`);
    expect(wrong).toEqual([]);
  });
});

describe('the lock is complete for every platform', () => {
  it('resolves every dependency and optional dependency of every locked package', () => {
    const unresolved: string[] = [];
    for (const [path, entry] of entries) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (!resolveInLock(path, name)) unresolved.push(`${path} -> ${name}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  // The platform binaries as the installed rollup and esbuild list them in their own package.json.
  for (const tool of ['rollup', 'esbuild']) {
    it(`locks each platform package that ${tool}'s package.json lists, at the version it pins`, () => {
      const copies = [...installed].filter(([, m]) => m.name === tool);
      expect(copies.length).toBeGreaterThan(0);
      for (const [path, manifest] of copies) {
        const platforms = Object.entries(manifest.optionalDependencies ?? {}).filter(([n]) => n.startsWith(`@${tool}/`));
        expect(platforms.length, `${path} lists its platform packages`).toBeGreaterThan(10);
        const wrong = platforms
          .map(([name, pinned]) => [name, pinned, resolveInLock(path, name)] as const)
          .filter(([, pinned, at]) => !at || lock.packages[at]?.version !== pinned)
          .map(([name, pinned, at]) => `${name}: pinned ${pinned}, locked ${at ? lock.packages[at]?.version : 'nothing'}`);
        expect(wrong).toEqual([]);
      }
    });
  }
});
