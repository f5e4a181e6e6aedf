import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { electronFolders, kindNames } from '../../../eslint.layers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** Lints source as if it were at `filePath` and returns the layer-rule messages. */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules of docs/architecture.md', () => {
  const violations: Array<[string, string, RegExp]> = [
    ['renderer/src/bad.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n", /no Node built-ins/],
    ['renderer/src/bad.ts', "import fs from 'fs';\nvoid fs;\n", /no Node built-ins/],
    ['renderer/src/bad.ts', "import { ipcRenderer } from 'electron';\nvoid ipcRenderer;\n", /over RPC only/],
    ['renderer/src/bad.ts', "import Database from 'better-sqlite3';\nvoid Database;\n", /over RPC only/],
    ['renderer/src/bad.ts', "import { x } from '../../electron/root/app-services';\nvoid x;\n", /must not import services/],
    ['renderer/src/stores/bad.ts', "import { useRpc } from '../api/rpc';\nvoid useRpc;\n", /renderer\/src\/services/],
    ['renderer/src/stores/bad.ts', "import type { RpcClient } from '../../../shared/rpc/client';\nexport type X = RpcClient;\n", /renderer\/src\/services/],
    ['renderer/src/components/bad.vue', "<script setup lang=\"ts\">\nimport { useRpc } from '../api/rpc';\nvoid useRpc;\n</script>\n", /renderer\/src\/services/],
    ['renderer/src/stores/bad.ts', "import fs from 'fs';\nvoid fs;\n", /no Node built-ins/],
    ['shared/bad.ts', "import { join } from 'node:path';\nvoid join;\n", /no Node built-ins/],
    ['shared/bad.ts', "import { x } from '../electron/rpc/router';\nvoid x;\n", /other project folders/],
    ['electron/cache/bad.ts', "import { app } from 'electron';\nvoid app;\n", /plain Node/],
    ['electron/cache/bad.ts', "import { x } from '../../renderer/src/main';\nvoid x;\n", /must not import the renderer/],
    ['electron/main/bad.ts', "import { x } from '../../renderer/src/main';\nvoid x;\n", /must not import the renderer/],
    ['electron/preload/bad.ts', "import { z } from 'zod';\nvoid z;\n", /no zod/],
    ['electron/preload/bad.ts', "import { methods } from '../../shared/rpc/contract';\nvoid methods;\n", /only shared\/rpc\/names/],
  ];

  for (const [file, code, message] of violations) {
    it(`fails ${file}: ${code.split('\n')[0]}`, async () => {
      const errors = await layerErrors(file, code);
      expect(errors.length).toBe(1);
      expect(errors[0]).toMatch(message);
    });
  }

  const allowed: Array<[string, string]> = [
    ['renderer/src/ok.ts', "import { methods } from '../../shared/rpc/contract';\nvoid methods;\n"],
    ['renderer/src/services/ok.ts', "import { useRpc } from '../api/rpc';\nvoid useRpc;\n"],
    ['renderer/src/stores/ok.ts', "import { useServices } from '../services';\nimport type { LinkState } from '../api/link';\nvoid useServices;\nexport type X = LinkState;\n"],
    ['shared/ok.ts', "import { z } from 'zod';\nimport { x } from './stream';\nvoid z; void x;\n"],
    ['electron/cache/ok.ts', "import { join } from 'node:path';\nimport Database from 'better-sqlite3';\nvoid join; void Database;\n"],
    ['electron/main/ok.ts', "import { app } from 'electron';\nvoid app;\n"],
    ['electron/preload/ok.ts', "import { METHOD_NAMES } from '../../shared/rpc/names';\nvoid METHOD_NAMES;\n"],
  ];
  for (const [file, code] of allowed) {
    it(`allows ${file}`, async () => {
      expect(await layerErrors(file, code)).toEqual([]);
    });
  }
});

describe('floors of the Node side: one row per folder of electron/', () => {
  const dirs = (dir: string) =>
    readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  const top = dirs(join(root, 'electron'));

  it('has a row for every folder of electron/ and none for a folder that is gone', () => {
    expect(Object.keys(electronFolders).sort()).toEqual([...top].sort());
  });

  it('has no sub-folder named like a top-level folder, so a relative ../name is never ambiguous', () => {
    const nested = (dir: string): string[] => dirs(dir).flatMap((d) => [d, ...nested(join(dir, d))]);
    const clashes = top.flatMap((t) => nested(join(root, 'electron', t)).filter((n) => top.includes(n)).map((n) => `${t}/…/${n}`));
    expect(clashes).toEqual([]);
  });

  // One deliberate violation per folder: each proves that folder's own entry is the one applied.
  const violations: Array<[string, string, RegExp]> = [
    ['electron/ground/bad.ts', "import { x } from '../rpc/router';\nvoid x;\n", /electron\/ground must not import electron\/rpc/],
    ['electron/local-service/catalog/bad.ts', "import { x } from '../../root/app-services';\nvoid x;\n", /electron\/local-service must not import electron\/root/],
    ['electron/local-service/bad.ts', "import { x } from '../cache';\nvoid x;\n", /electron\/local-service must not import electron\/cache/],
    ['electron/rpc/bad.ts', "import { x } from '../cache';\nvoid x;\n", /electron\/rpc must not import electron\/cache/],
    ['electron/cache/bad.ts', "import { x } from '../client';\nvoid x;\n", /electron\/cache must not import electron\/client/],
    ['electron/cache/bad.ts', "import { x } from '../../electron/root/app-services';\nvoid x;\n", /electron\/cache must not import electron\/root/],
    ['electron/keys/bad.ts', "import { x } from '../profiles/profile-service';\nvoid x;\n", /electron\/keys must not import electron\/profiles/],
    ['electron/profiles/bad.ts', "import { x } from '../keys/key-service';\nvoid x;\n", /electron\/profiles must not import electron\/keys/],
    ['electron/client/bad.ts', "import { x } from '../keys/key-service';\nvoid x;\n", /electron\/client must not import electron\/keys/],
    ['electron/export/bad.ts', "import { x } from '../client';\nvoid x;\n", /electron\/export must not import electron\/client/],
    ['electron/fieldkit/bad.ts', "import { x } from '../client';\nvoid x;\n", /electron\/fieldkit must not import electron\/client/],
    ['electron/root/bad.ts', "import { x } from '../host/browser-host';\nvoid x;\n", /electron\/root must not import electron\/host/],
    ['electron/host/bad.ts', "import { x } from '../cache';\nvoid x;\n", /electron\/host must not import electron\/cache/],
    ['electron/main/bad.ts', "import { x } from '../keys/keytar-store';\nvoid x;\n", /electron\/main must not import electron\/keys/],
    ['electron/preload/bad.ts', "import { x } from '../root/app-services';\nvoid x;\n", /must not import services/],
  ];
  for (const [file, code, message] of violations) {
    it(`fails ${file}: ${code.split('\n')[0]}`, async () => {
      const errors = await layerErrors(file, code);
      expect(errors.length).toBe(1);
      expect(errors[0]).toMatch(message);
    });
  }

  it('names every folder of electron/ in at least one violation above', () => {
    const proven = new Set(violations.map(([file]) => file.split('/')[1]));
    expect([...top].filter((t) => !proven.has(t))).toEqual([]);
  });

  const allowed: Array<[string, string]> = [
    ['electron/ground/ok.ts', "import { x } from './logger';\nimport { y } from '../../shared/rpc/errors';\nvoid x; void y;\n"],
    ['electron/local-service/http/ok.ts', "import { a } from '../../ground/logger';\nimport { b } from '../store';\nimport { c } from '../catalog/catalog';\nvoid a; void b; void c;\n"],
    ['electron/keys/ok.ts', "import { a } from '../rpc/router';\nimport { b } from '../ground/logger';\nvoid a; void b;\n"],
    ['electron/client/ok.ts', "import { a } from '../cache';\nimport { b } from '../rpc/router';\nvoid a; void b;\n"],
    ['electron/export/ok.ts', "import { a } from '../cache';\nvoid a;\n"],
    ['electron/fieldkit/ok.ts', "import { a } from '../cache';\nimport { b } from '../keys/secret-store';\nvoid a; void b;\n"],
    ['electron/root/ok.ts', "import { a } from '../local-service/server';\nimport { b } from '../keys/key-service';\nimport { c } from '../profiles/profile-service';\nvoid a; void b; void c;\n"],
    ['electron/host/ok.ts', "import { a } from '../root/app-services';\nimport { b } from '../rpc/router';\nvoid a; void b;\n"],
    ['electron/main/ok.ts', "import { app } from 'electron';\nimport { a } from '../root/app-services';\nvoid app; void a;\n"],
  ];
  for (const [file, code] of allowed) {
    it(`allows ${file}`, async () => {
      expect(await layerErrors(file, code)).toEqual([]);
    });
  }
});

describe('no kind literal in the query code (kinds are vocabulary entries)', () => {
  const QUERY = join(root, 'electron/local-service/query');

  async function kindErrors(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  }

  for (const kind of kindNames) {
    it(`fails electron/local-service/query/rules/bad.ts: a '${kind}' literal`, async () => {
      const errors = await kindErrors('electron/local-service/query/rules/bad.ts', `export const isIt = (k: string) => k === '${kind}';\n`);
      expect(errors).toEqual([expect.stringMatching(/No kind literal in the query code/)]);
    });
  }

  it('fails a kind in a type, too', async () => {
    const errors = await kindErrors('electron/local-service/query/bad.ts', `export type K = '${kindNames[0]}' | 'other';\n`);
    expect(errors.length).toBe(1);
  });

  it('allows kind names in the vocabulary entries and other words in the query code', async () => {
    expect(await kindErrors('electron/local-service/catalog/kinds/ok.ts', `export const name = '${kindNames[0]}';\n`)).toEqual([]);
    expect(await kindErrors('electron/local-service/query/ok.ts', `export const w = ['${kindNames[0]}s', 'upload', 'near'];\n`)).toEqual([]);
  });

  // Whatever the lint sees or not (strings in comments, template literals): the text has no kind name as a string.
  const quoted = new RegExp(`(['"\`])(${kindNames.join('|')})\\1`);
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));

  it('the grep finds a quoted kind name where there is one', () => {
    expect(quoted.test(`if (k === "${kindNames[1]}") return;`)).toBe(true);
    expect(quoted.test(`const label = \`${kindNames[2]}\`;`)).toBe(true);
    expect(quoted.test(`const w = '${kindNames[2]}s';`)).toBe(false);
  });

  it('finds no quoted kind name in any file of electron/local-service/query', () => {
    const list = files(QUERY);
    expect(list.length).toBeGreaterThan(10);
    const hits = list.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, n) => (quoted.test(line) ? [`${f.slice(root.length)}:${n + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});
