// Layer boundaries of ARCHITECTURE.md, enforced as no-restricted-imports. Kept in their own
// file so the lint test can assert each rule against a deliberate violation.
// Bare built-in names go in `paths` (exact match): as gitignore-style patterns they would also
// match our own relative modules of the same name (./stream).
const builtinNames = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'util', 'stream', 'worker_threads', 'zlib', 'events'];
const nodeBuiltins = ['node:*'];
const builtinPaths = (message) => builtinNames.map((name) => ({ name, message }));
const nodeOnlyPackages = ['better-sqlite3', 'keytar', 'fastify', 'ws', 'ofetch', 'exifr', 'papaparse'];
const nodeOnlyScoped = ['@fastify/*', 'fastify/*'];
const names = (list, message) => list.map((name) => ({ name, message }));

const group = (patterns, message) => ({ group: patterns, message });
// Relative paths (../../electron/x) are matched by regex: gitignore-style globs skip `..` segments.
const regex = (source, message) => ({ regex: source, message });

export const layerRules = [
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...builtinPaths('shared/ is pure TypeScript: no Node built-ins.'),
            ...names(['electron', ...nodeOnlyPackages, 'vue', 'pinia', 'ol'], 'shared/ may import only zod and pure TS.'),
          ],
          patterns: [
            group(nodeBuiltins, 'shared/ is pure TypeScript: no Node built-ins.'),
            group(nodeOnlyScoped, 'shared/ may import only zod and pure TS.'),
            regex('(^|/)(electron|renderer)/', 'shared/ must not import other project folders.'),
            group(['ol/*'], 'shared/ has no DOM or UI code.'),
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
          paths: [
            ...builtinPaths('The renderer runs in a browser: no Node built-ins.'),
            ...names(['electron', ...nodeOnlyPackages], 'The renderer talks to the main process over RPC only.'),
          ],
          patterns: [
            group(nodeBuiltins, 'The renderer runs in a browser: no Node built-ins.'),
            group(nodeOnlyScoped, 'The renderer talks to the main process over RPC only.'),
            regex('(^|/)electron/', 'The renderer must not import services or the Electron shell.'),
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
          paths: names(['electron'], 'Services are plain Node: no electron import (only electron/main and electron/preload).'),
          patterns: [
            regex('(^|/)renderer/', 'Services must not import the renderer.'),
            regex('(^|/)electron/(main|preload)/|^(\\.\\./)+(main|preload)/', 'Services must not import the Electron shell.'),
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
        { patterns: [regex('(^|/)renderer/', 'electron/main must not import the renderer.')] },
      ],
    },
  },
  {
    files: ['electron/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: names(['zod'], 'The preload carries names only: no zod.'),
          patterns: [
            group(['zod/*'], 'The preload carries names only: no zod.'),
            regex('(^|/)shared/(?!rpc/names$)', 'The preload imports only shared/rpc/names.'),
            regex('^\\.\\./(?!\\.\\./shared/)|(^|/)renderer/', 'The preload must not import services or the renderer.'),
          ],
        },
      ],
    },
  },
];
