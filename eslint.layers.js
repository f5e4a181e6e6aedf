// Layer boundaries of ARCHITECTURE.md, enforced as no-restricted-imports. Kept in their own
// file so the lint test can assert each rule against a deliberate violation.
// Bare built-in names go in `paths` (exact match): as gitignore-style patterns they would also
// match our own relative modules of the same name (./stream).
const builtinNames = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'util', 'stream', 'worker_threads', 'zlib', 'events'];
const nodeBuiltins = ['node:*'];
const builtinPaths = (message) => builtinNames.map((name) => ({ name, message }));
const nodeOnlyPackages = ['better-sqlite3', 'keytar', 'fastify', 'fastify/*', '@fastify/*', 'ws', 'ofetch', 'exifr', 'papaparse'];

const group = (patterns, message) => ({ group: patterns, message });

export const layerRules = [
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinPaths('shared/ is pure TypeScript: no Node built-ins.'),
          patterns: [
            group(nodeBuiltins, 'shared/ is pure TypeScript: no Node built-ins.'),
            group(['electron', ...nodeOnlyPackages], 'shared/ may import only zod and pure TS.'),
            group(['**/electron/**', '**/renderer/**', '../../electron/*', '../../renderer/*'], 'shared/ must not import other project folders.'),
            group(['vue', 'pinia', 'ol', 'ol/*'], 'shared/ has no DOM or UI code.'),
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinPaths('The renderer runs in a browser: no Node built-ins.'),
          patterns: [
            group(nodeBuiltins, 'The renderer runs in a browser: no Node built-ins.'),
            group(['electron', ...nodeOnlyPackages], 'The renderer talks to the main process over RPC only.'),
            group(['**/electron/**'], 'The renderer must not import services or the Electron shell.'),
          ],
        },
      ],
    },
  },
  {
    files: ['electron/**/*.ts'],
    ignores: ['electron/main/**', 'electron/preload/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            group(['electron'], 'Services are plain Node: no electron import (only electron/main and electron/preload).'),
            group(['**/renderer/**'], 'Services must not import the renderer.'),
            group(['**/electron/main/**', '**/main/index', '../main/*', '../../main/*'], 'Services must not import the Electron shell.'),
          ],
        },
      ],
    },
  },
  {
    files: ['electron/main/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [group(['**/renderer/**'], 'electron/main must not import the renderer.')] },
      ],
    },
  },
  {
    files: ['electron/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            group(['zod', 'zod/*'], 'The preload carries names only: no zod.'),
            group(['**/shared/rpc/contract', '**/shared/rpc/methods/*', '**/shared/service/*', '**/shared/index'], 'The preload imports only shared/rpc/names.'),
            group(['../core/*', '../rpc/*', '../host/*', '../local-service/*', '**/renderer/**'], 'The preload must not import services or the renderer.'),
          ],
        },
      ],
    },
  },
];
