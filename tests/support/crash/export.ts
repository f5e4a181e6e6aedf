import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Papa from 'papaparse';
import { runAndKill } from './kill';

export interface ExportFigures {
  rounds: number;
  killedInWrite: number;
  /** Files under a final name checked whole (all the features, readable to the end). */
  completeFiles: number;
  /** Files under a final name that were not whole: must be none. */
  halfWritten: string[];
  /** Temporary files left beside the destination by a killed export (never under the final name). */
  leftoverPartials: number;
  corruptSource: string[];
}

const CHILD = join(import.meta.dirname, 'export-child.ts');

/** Features in a finished export file, read with a reader of its own format; throws when it is not whole. */
export function featuresIn(path: string): number {
  if (path.endsWith('.geojson')) return (JSON.parse(readFileSync(path, 'utf8')) as { features: unknown[] }).features.length;
  if (path.endsWith('.geojsonl')) {
    const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim());
    for (const l of lines) JSON.parse(l);
    return lines.length;
  }
  if (path.endsWith('.csv')) {
    const parsed = Papa.parse<string[]>(readFileSync(path, 'utf8'), { skipEmptyLines: true });
    if (parsed.errors.length) throw new Error(parsed.errors[0]!.message);
    return parsed.data.length - 1;
  }
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    if (db.pragma('integrity_check', { simple: true }) !== 'ok') throw new Error('integrity_check failed');
    const tables = db.prepare(`SELECT table_name FROM gpkg_contents WHERE data_type = 'features'`).pluck().all() as string[];
    return tables.reduce((n, t) => n + (db.prepare(`SELECT count(*) FROM "${t.replace(/"/g, '""')}"`).pluck().get() as number), 0);
  } finally {
    db.close();
  }
}

/**
 * SIGKILLs the exporting child `rounds` times at random moments; after each kill, every file
 * under a final name must hold all `expected` features, and the source cache must be sound.
 */
export async function exportRounds(cacheFile: string, queryId: number, expected: number, outDir: string, rounds: number, random = Math.random): Promise<ExportFigures> {
  const f: ExportFigures = { rounds, killedInWrite: 0, completeFiles: 0, halfWritten: [], leftoverPartials: 0, corruptSource: [] };
  for (let round = 0; round < rounds; round++) {
    const run = await runAndKill(CHILD, [cacheFile, outDir, String(round), String(queryId)], Math.floor(random() * 250));
    if (run.inWrite) f.killedInWrite++;
    for (const name of readdirSync(outDir)) {
      const path = join(outDir, name);
      if (name.startsWith('.')) {
        f.leftoverPartials++;
      } else {
        try {
          const n = featuresIn(path);
          if (n === expected) f.completeFiles++;
          else f.halfWritten.push(`round ${round}: ${name} holds ${n} of ${expected} features`);
        } catch (e) {
          f.halfWritten.push(`round ${round}: ${name} unreadable: ${(e as Error).message}`);
        }
      }
      // Each round starts from an empty folder.
      rmSync(path, { force: true });
    }
    const db = new Database(cacheFile, { readonly: true });
    try {
      const integrity = db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') f.corruptSource.push(`round ${round}: ${String(integrity)}`);
    } finally {
      db.close();
    }
  }
  return f;
}
