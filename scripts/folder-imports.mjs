// Counts imports between folders of electron/ (static `import`/`export ... from` of relative
// paths), and lists files over 400 lines in electron/, renderer/ and shared/. For the notes of a
// structural change: `node scripts/folder-imports.mjs [root]`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? (d.name === 'node_modules' ? [] : walk(p)) : [p];
  });
const sources = (dir) => walk(join(root, dir)).filter((f) => /\.(ts|vue)$/.test(f) && !f.endsWith('.d.ts'));

const folderOf = (file) => relative(join(root, 'electron'), file).split('/')[0];
const pairs = new Map();
let total = 0;
for (const file of sources('electron')) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)) {
    const target = resolve(dirname(file), m[1]);
    if (!target.startsWith(join(root, 'electron') + '/')) continue;
    const from = folderOf(file);
    const to = folderOf(target);
    if (from === to) continue;
    total++;
    pairs.set(`${from} -> ${to}`, (pairs.get(`${from} -> ${to}`) ?? 0) + 1);
  }
}
// The services floor (docs/architecture.md, "Floors of the Node side"); photos/ was one before it joined the composition root.
const services = new Set(['cache', 'client', 'export', 'keys', 'photos', 'profiles', 'rpc']);
const between = [...pairs].filter(([k]) => k.split(' -> ').every((f) => services.has(f)));
console.log(`imports between folders of electron/: ${total}`);
for (const [k, n] of [...pairs].sort()) console.log(`  ${k}: ${n}`);
console.log(`imports between service folders (${[...services].join(', ')}): ${between.reduce((s, [, n]) => s + n, 0)}`);
const loops = [...pairs.keys()].filter((k) => pairs.has(k.split(' -> ').reverse().join(' -> ')));
console.log(`folder pairs importing each other: ${loops.length ? loops.join('; ') : 'none'}`);
const long = ['electron', 'renderer', 'shared']
  .flatMap(sources)
  .map((f) => [relative(root, f), readFileSync(f, 'utf8').split('\n').length - 1])
  .filter(([, n]) => n > 400);
console.log(`files over 400 lines: ${long.length}`);
for (const [f, n] of long) console.log(`  ${f}: ${n}`);
