// Layer boundaries of docs/architecture.md, enforced as no-restricted-imports, and the rule that keeps
// kind names out of the query code. Kept in their own file so the lint test can assert each rule
// against a deliberate violation.
// Bare built-in names go in `paths` (exact match): as gitignore-style patterns they would also
// match our own relative modules of the same name (./stream).
const builtinNames = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'util', 'stream', 'worker_threads', 'zlib', 'events'];
const nodeBuiltins = ['node:*'];
const builtinPaths = (message) => builtinNames.map((name) => ({ name, message }));
const nodeOnlyPackages = ['better-sqlite3', 'keytar', 'fastify', 'ws', 'ofetch', 'exifr', 'papaparse'];
const nodeOnlyScoped = ['@fastify/*', 'fastify/*'];
const names = (list, message) => list.map((name) => ({ name, message }));

const group = (patterns, message) => ({ group: patterns, message });
// Relative paths (`../../<folder>`) are matched by regex: gitignore-style globs skip `..` segments.
const regex = (source, message) => ({ regex: source, message });

/**
 * The floors of the Node side (docs/architecture.md, "Floors of the Node side"): which folders of
 * electron/ each folder of electron/ may import. Everything else of electron/ is refused. Every
 * folder may import shared/ (the preload only shared/rpc/names) and its own files.
 */
export const electronFolders = {
  // ground floor: imports nothing else of electron/
  ground: [],
  // the bundled service: runs alone for a team, so only the ground floor
  'local-service': ['ground'],
  // services
  rpc: ['ground'],
  cache: ['ground'],
  keys: ['ground', 'rpc'],
  profiles: ['ground', 'rpc'],
  client: ['ground', 'rpc', 'cache'],
  export: ['ground', 'cache'],
  // field kit: settings, evidence bundles, the question queue, history by place, diffs, packs
  fieldkit: ['ground', 'rpc', 'cache', 'keys', 'export'],
  // composition root: builds every service; only the shells import it
  root: ['ground', 'rpc', 'cache', 'keys', 'profiles', 'client', 'export', 'fieldkit', 'local-service'],
  // shells
  host: ['ground', 'rpc', 'root'],
  main: ['ground', 'root'],
  preload: [],
};

const folders = Object.keys(electronFolders);
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// `../<x>` or `../../<x>` from inside electron/<folder>/, or any path through electron/<x>. Sub-folders
// never share a top-level folder's name (the lint test checks), so `../<x>` is never ambiguous.
const folderImport = (target) => `(^|/)electron/${escapeRe(target)}(/|$)|^(\\.\\./)+${escapeRe(target)}(/|$)`;

const notElectron = names(['electron'], 'Services are plain Node: no electron import (only electron/main and electron/preload).');
const notRenderer = (who) => regex('(^|/)renderer/', `${who} must not import the renderer.`);

/** One entry per folder: in flat config a later matching entry would replace an earlier one's options. */
function electronFolderRule(folder) {
  const allowed = electronFolders[folder];
  const refused = folders
    .filter((f) => f !== folder && !allowed.includes(f))
    .map((f) =>
      regex(
        folderImport(f),
        `electron/${folder} must not import electron/${f}: it may import ${allowed.length ? allowed.map((a) => `electron/${a}`).join(', ') + ' and ' : ''}shared/ only.`,
      ),
    );
  const options =
    folder === 'preload'
      ? {
          paths: names(['zod'], 'The preload carries names only: no zod.'),
          patterns: [
            group(['zod/*'], 'The preload carries names only: no zod.'),
            regex('(^|/)shared/(?!rpc/names$)', 'The preload imports only shared/rpc/names.'),
            regex('^\\.\\./(?!\\.\\./shared/)|(^|/)renderer/', 'The preload must not import services or the renderer.'),
          ],
        }
      : {
          ...(folder === 'main' ? {} : { paths: notElectron }),
          patterns: [notRenderer(folder === 'main' ? 'electron/main' : 'Services'), ...refused],
        };
  return { files: [`electron/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', options] } };
}

/**
 * Feature kinds are data (docs/architecture.md, "Inside the local service"): the
 * query code names no kind; its words, columns and labels come from the kinds' vocabulary entries.
 */
export const kindNames = ['city', 'airport', 'country'];

const kindLiteralRule = {
  files: ['electron/local-service/query/**/*.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: `Literal[value=/^(${kindNames.join('|')})$/]`,
        message: 'No kind literal in the query code: kinds are vocabulary entries (catalog/kinds), read through catalog.kinds.',
      },
    ],
  },
};

/** What the whole renderer may not import. */
const renderer = {
  paths: [
    ...builtinPaths('The renderer runs in a browser: no Node built-ins.'),
    ...names(['electron', ...nodeOnlyPackages], 'The renderer talks to the main process over RPC only.'),
  ],
  patterns: [
    group(nodeBuiltins, 'The renderer runs in a browser: no Node built-ins.'),
    group(nodeOnlyScoped, 'The renderer talks to the main process over RPC only.'),
    regex('(^|/)electron/', 'The renderer must not import services or the Electron shell.'),
  ],
};
const rpcClient = regex(
  '(^|/)(api/rpc|shared/rpc/client)$',
  'Stores and components do not hold the RPC client: they call renderer/src/services (useServices), one module per domain.',
);

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
  { files: ['renderer/**/*.ts', 'renderer/**/*.vue'], rules: { 'no-restricted-imports': ['error', renderer] } },
  // Stores and components reach the Node side through renderer/src/services only (one module per domain).
  {
    files: ['renderer/src/stores/**/*.ts', 'renderer/src/components/**/*.ts', 'renderer/src/components/**/*.vue'],
    rules: { 'no-restricted-imports': ['error', { ...renderer, patterns: [...renderer.patterns, rpcClient] }] },
  },
  ...folders.map(electronFolderRule),
  kindLiteralRule,
];

