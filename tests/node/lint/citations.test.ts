import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Everything the repository cites must be in it: a person with a clone has nothing else. Checks
// every tracked text file for relative paths that climb out of the repository, for documents
// (*.md) that do not exist, and for sections of them (`<doc>.md#anchor`, `<doc>.md, "Heading"`)
// that have no such heading.

const root = fileURLToPath(new URL('../../../', import.meta.url));

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean)
  .filter((f) => existsSync(join(root, f)));

const BINARY = /\.(png|jpe?g|gif|webp|gz|zip|gpkg|sqlite|pbf|fgb|shp|dbf|pdf|mp4|woff2?)$/i;
const textFiles = tracked
  .filter((f) => !BINARY.test(f) && f !== 'package-lock.json')
  .map((f) => ({ file: f, text: readFileSync(join(root, f), 'utf8') }))
  .filter(({ text }) => !text.includes('\0'));

const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;
const inRepo = (abs: string) => {
  const r = relative(root, abs);
  return r !== '' && !r.startsWith('..') && !r.startsWith('/');
};

/**
 * Where a cited document is: beside the citing file, else (code comments name paths from the
 * top) from the repository root. Null when it is not in the repository.
 */
function locate(citing: string, cited: string, fromRoot = true): string | null {
  for (const base of fromRoot ? [dirname(join(root, citing)), root] : [dirname(join(root, citing))]) {
    const abs = resolve(base, cited);
    if (inRepo(abs) && existsSync(abs)) return abs;
  }
  return null;
}

/** GitHub-style anchors of a Markdown file's headings, and the headings' own text. */
function headingsOf(abs: string): { anchors: Set<string>; titles: Set<string> } {
  const titles = new Set<string>();
  const anchors = new Set<string>();
  for (const m of readFileSync(abs, 'utf8').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const title = m[1]!.replace(/`/g, '');
    titles.add(title);
    anchors.add(
      title
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return { anchors, titles };
}

// Path traversal attempts in the attack tests point outside on purpose; they are not citations.
const TRAVERSAL = /^(\.\.\/)+etc\//;

describe('the repository stands alone', () => {
  it('reads the tracked text files', () => {
    expect(textFiles.length).toBeGreaterThan(500);
    expect(textFiles.some((t) => t.file === 'README.md')).toBe(true);
  });

  it('cites no relative path outside the repository', () => {
    const out: string[] = [];
    for (const { file, text } of textFiles) {
      for (const m of text.matchAll(/(?<![\w./-])((?:\.\.\/)+[\w@][\w.@/-]*)/g)) {
        const path = m[1]!;
        if (TRAVERSAL.test(path)) continue;
        if (!inRepo(resolve(dirname(join(root, file)), path))) out.push(`${file}:${lineOf(text, m.index)}: ${path}`);
      }
    }
    expect(out).toEqual([]);
  });

  it('cites only documents that exist, and only sections they have', () => {
    const out: string[] = [];
    // A path to a .md file (absolute ones included: they are outside), then an optional #anchor or
    // a quoted heading; URLs are skipped by the look-behind.
    const cite = /(?<![\w/.:-])(\/?(?:\.{1,2}\/)*[\w.-]+(?:\/[\w.-]+)*\.md)(#[\w-]+)?(?:\)?,? "([^"\n]+)")?/g;
    for (const { file, text } of textFiles) {
      for (const m of text.matchAll(cite)) {
        const [, doc, anchor, heading] = m;
        const at = `${file}:${lineOf(text, m.index)}`;
        const abs = locate(file, doc!);
        if (!abs) {
          out.push(`${at}: ${doc} does not exist`);
          continue;
        }
        const { anchors, titles } = headingsOf(abs);
        if (anchor && !anchors.has(anchor.slice(1))) out.push(`${at}: ${doc} has no section ${anchor}`);
        if (heading && !titles.has(heading)) out.push(`${at}: ${doc} has no section "${heading}"`);
      }
    }
    expect(out).toEqual([]);
  });

  it('names in docs/ only source files that exist', () => {
    const docs = textFiles.filter((t) => t.file.startsWith('docs/') && t.file.endsWith('.md'));
    expect(docs.map((d) => d.file)).toEqual(expect.arrayContaining(['docs/architecture.md', 'docs/service-interface.md']));
    const out: string[] = [];
    for (const { file, text } of docs) {
      for (const m of text.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\.(?:ts|js|mjs|json|sh|md))`/g)) {
        if (!locate(file, m[1]!)) out.push(`${file}:${lineOf(text, m.index)}: ${m[1]}`);
      }
    }
    expect(out).toEqual([]);
  });

  it('has no Markdown link to a missing file', () => {
    const out: string[] = [];
    for (const { file, text } of textFiles.filter((t) => t.file.endsWith('.md'))) {
      for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        if (!locate(file, decodeURI(target), false)) out.push(`${file}:${lineOf(text, m.index)}: ${target}`);
      }
    }
    expect(out).toEqual([]);
  });
});
