import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One request of the OverpassNL data set: the words, the community's query and the view it was typed in. */
export interface NlRequest {
  line: number;
  nl: string;
  query: string;
  /** [south, west, north, east], or null when the split gives none. */
  view: [number, number, number, number] | null;
}

/**
 * Reads a split (`train`, `dev`, `test`) from the unpacked data set: dataset.<split>.{nl,query,bbox},
 * one request per line, aligned by line. Null when the folder or a file is missing.
 */
export function readSplit(dir: string, split: string): NlRequest[] | null {
  const file = (ext: string) => join(dir, `dataset.${split}.${ext}`);
  if (!existsSync(file('nl')) || !existsSync(file('query'))) return null;
  const lines = (ext: string) => (existsSync(file(ext)) ? readFileSync(file(ext), 'utf8').split('\n') : []);
  const nl = lines('nl');
  const query = lines('query');
  const bbox = lines('bbox');
  const out: NlRequest[] = [];
  for (let i = 0; i < nl.length; i++) {
    if (!nl[i]!.trim() || !query[i]?.trim()) continue;
    const b = (bbox[i] ?? '').split(',').map(Number);
    const view = b.length === 4 && b.every(Number.isFinite) ? (b as [number, number, number, number]) : null;
    out.push({ line: i + 1, nl: nl[i]!.trim(), query: query[i]!.trim(), view });
  }
  return out;
}
