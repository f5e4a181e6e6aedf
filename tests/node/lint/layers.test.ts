import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** Lints source as if it were at `filePath` and returns the layer-rule messages. */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules of ARCHITECTURE.md', () => {
  const violations: Array<[string, string, RegExp]> = [
    ['renderer/src/bad.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n", /no Node built-ins/],
    ['renderer/src/bad.ts', "import fs from 'fs';\nvoid fs;\n", /no Node built-ins/],
    ['renderer/src/bad.ts', "import { ipcRenderer } from 'electron';\nvoid ipcRenderer;\n", /over RPC only/],
    ['renderer/src/bad.ts', "import Database from 'better-sqlite3';\nvoid Database;\n", /over RPC only/],
    ['renderer/src/bad.ts', "import { x } from '../../electron/core/app-services';\nvoid x;\n", /must not import services/],
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
