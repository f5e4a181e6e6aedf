import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_FORMATS } from '../../../shared/formats';

const root = join(__dirname, '../../..');
const TABLE = 'shared/formats.ts';

// Every suffix the table knows, longest first so ".osm.pbf" is one token, not ".osm" and ".pbf".
const suffixes = [...new Set(FILE_FORMATS.flatMap((f) => f.suffixes.map((s) => s.slice(1))))].sort((a, b) => b.length - a.length);
const alt = suffixes.map((s) => s.replace(/\./g, '\\.')).join('|');
// A suffix, not a property (`EXPORT_EXTENSION.qgz`).
const DOTTED = new RegExp(`(?<![\\w$\\]])\\.(${alt})(?![\\w.])`, 'gi');
const QUOTED = `['"\`](${alt})['"\`]`;
// Quoted suffixes one after another with commas: ['pbf', 'osm', …].
const BARE_LIST = new RegExp(`${QUOTED}(?:\\s*,\\s*${QUOTED})+`, 'gi');
const BARE = new RegExp(QUOTED, 'gi');

/** The suffixes one line of code names as a list (two or more), or none; comments are prose. */
export function listedSuffixes(line: string): string[] {
  const code = line.replace(/\\/g, '');
  if (/^\s*(\*|\/\/|\/\*)/.test(code)) return [];
  const dotted = new Set([...code.matchAll(DOTTED)].map((m) => m[1]!.toLowerCase()));
  if (dotted.size >= 2) return [...dotted];
  const bare = new Set([...code.matchAll(BARE_LIST)].flatMap((m) => [...m[0].matchAll(BARE)].map((b) => b[1]!.toLowerCase())));
  return bare.size >= 2 ? [...bare] : [];
}

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (/\.(ts|vue)$/.test(name)) yield p;
  }
}

describe('one formats table', () => {
  it('finds a list of suffixes written by hand (the lists the table replaced)', () => {
    expect(listedSuffixes("export const LAYER_FILE_ACCEPT = '.pbf,.osm,.gpkg,.shp,.kml,.gpx,.fgb,.geojson,.json,.geojsonl';")).toHaveLength(10);
    expect(listedSuffixes("  { name: 'Data layers', extensions: ['pbf', 'osm', 'gpkg', 'shp'] },")).toHaveLength(4);
    expect(listedSuffixes('  [/\\.(geo)?json$|\\.geojsonl$|\\.geojsons$|\\.ndjson$|\\.jsonl$/i, geojsonReader],').length).toBeGreaterThanOrEqual(4);
    expect(listedSuffixes("format: z.enum(['csv', 'geojson']),")).toHaveLength(2);
    // One suffix, a comparison of ids, or prose is no list.
    expect(listedSuffixes("if (extname(given).toLowerCase() !== '.gpkg')")).toEqual([]);
    expect(listedSuffixes("const want = format === 'kml' ? 'kml' : 'gpx';")).toEqual([]);
    expect(listedSuffixes(' * a .qgz, or a .zip holding project and data')).toEqual([]);
  });

  it('has no other list of suffixes in the app, the service or the contract', () => {
    const found: string[] = [];
    for (const dir of ['electron', 'shared', 'renderer/src'])
      for (const file of sources(join(root, dir))) {
        const rel = relative(root, file);
        if (rel === TABLE) continue;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            const hit = listedSuffixes(line);
            if (hit.length) found.push(`${rel}:${i + 1} ${hit.join(' ')}`);
          });
      }
    expect(found).toEqual([]);
  });

  it('gives each suffix one format and each reader and export one row', () => {
    const all = FILE_FORMATS.flatMap((f) => f.suffixes);
    expect(new Set(all).size).toBe(all.length);
    const written = FILE_FORMATS.flatMap((f) => (f.written ? [f.written] : []));
    expect(new Set(written).size).toBe(written.length);
  });
});
