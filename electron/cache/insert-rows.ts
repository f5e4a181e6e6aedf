import type { CacheDb } from './db';

/**
 * Rows per statement, largest first. Each run of a prepared statement is a native call that
 * binds its values and builds a result object; one VALUES list of many rows pays that once, so a
 * response's 2,000 items take a few dozen runs. Three sizes keep the statement cache small
 * while a remainder never needs more than a handful of runs.
 */
const SIZES = [64, 8, 1];

/**
 * Writes rows given one after another in `values` (`width` values each) with
 * `<head> VALUES (..), (..), ..`; `head` names the table and its columns in that order.
 */
export function insertRows(c: CacheDb, head: string, width: number, values: unknown[]): void {
  const rows = values.length / width;
  if (!Number.isInteger(rows)) throw new Error(`${values.length} values are not rows of ${width}`);
  let r = 0;
  for (const size of SIZES) {
    if (rows - r < size) continue;
    const stmt = c.stmt(`${head} VALUES ${valuesList(size, width)}`);
    // Values as arguments: better-sqlite3 reads them directly, where an array's are looked up one by one.
    for (; rows - r >= size; r += size) stmt.run(...(size === rows ? values : values.slice(r * width, (r + size) * width)));
  }
}

function valuesList(rows: number, width: number): string {
  const row = `(?${', ?'.repeat(width - 1)})`;
  return Array.from({ length: rows }, () => row).join(', ');
}
