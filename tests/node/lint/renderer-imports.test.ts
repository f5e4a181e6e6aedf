import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const src = join(root, 'renderer/src');

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? tsFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));

/** The renderer modules a file loads when it runs: relative imports and re-exports, type-only ones left out. */
function valueImports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const s of sf.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(s)) {
      const c = s.importClause;
      const typeOnly =
        !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) spec = s.moduleSpecifier;
    } else if (ts.isExportDeclaration(s) && !s.isTypeOnly) spec = s.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const base = resolve(dirname(file), spec.text);
    const hit = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (hit) out.push(hit);
  }
  return out;
}

/** One import cycle of the graph as a path that comes back to its start, or null. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (v: string): string[] | null => {
    state.set(v, 'open');
    path.push(v);
    for (const w of graph.get(v) ?? []) {
      if (state.get(w) === 'open') return [...path.slice(path.indexOf(w)), w];
      if (!state.has(w)) {
        const c = visit(w);
        if (c) return c;
      }
    }
    path.pop();
    state.set(v, 'done');
    return null;
  };
  for (const v of graph.keys()) {
    if (state.has(v)) continue;
    const c = visit(v);
    if (c) return c;
  }
  return null;
}

describe('renderer imports', () => {
  it('finds a cycle where there is one, and none in a chain', () => {
    expect(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', []]]))).toBeNull();
  });

  it('has no import cycle between stores, composables (useRun), services and panels', () => {
    const files = tsFiles(src);
    expect(files.some((f) => f.endsWith('composables/useRun.ts'))).toBe(true);
    const graph = new Map(files.map((f) => [f, valueImports(f)]));
    expect(graph.get(join(src, 'stores/ask.ts'))).toContain(join(src, 'composables/useRun.ts'));
    const cycle = findCycle(graph);
    expect(cycle?.map((f) => relative(src, f)) ?? null).toBeNull();
  });
});
