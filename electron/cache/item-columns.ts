import type { Database } from 'better-sqlite3';
import type { QueryKind } from './types';
import { bool, num, str } from './rows';

/** Kinds whose items keep their own fields in a table beside `features`. */
const ITEM_TABLE: Partial<Record<QueryKind, string>> = { stream: 'observations', imagery: 'imagery_records' };

/** What a column's declared type reads from the item field of its name. INTEGER columns of these tables hold booleans. */
const READ_AS: Record<string, (v: unknown) => string | number | null> = { TEXT: str, REAL: num, INTEGER: bool };

export interface ItemColumns {
  /** `INSERT INTO <table> (id, ..)`: the row id first, then every other column of the table. */
  head: string;
  /** Values per row (the id included). */
  width: number;
  /** The values of that INSERT for one item's fields. */
  values(rowId: number, fields: Record<string, unknown>): (string | number | null)[];
}

const known = new WeakMap<Database, Map<string, ItemColumns>>();

/**
 * The kind-specific columns of a stored item, read from the table itself: its migration is the
 * one list of them, and each column takes the item field of the same name. Null for a kind
 * without such a table (compute features live in `features` alone).
 */
export function itemColumns(db: Database, kind: QueryKind): ItemColumns | null {
  const table = ITEM_TABLE[kind];
  if (!table) return null;
  let byTable = known.get(db);
  if (!byTable) known.set(db, (byTable = new Map()));
  const cached = byTable.get(table);
  if (cached) return cached;
  const cols = (db.pragma(`table_info(${table})`) as { name: string; type: string }[]).filter((c) => c.name !== 'id');
  const readers = cols.map(({ name, type }) => {
    const read = READ_AS[type.toUpperCase()];
    if (!read) throw new Error(`${table}.${name}: no reader for column type ${type}`);
    return (fields: Record<string, unknown>) => read(fields[name]);
  });
  const made: ItemColumns = {
    head: `INSERT INTO ${table} (id, ${cols.map((c) => c.name).join(', ')})`,
    width: cols.length + 1,
    values: (rowId, fields) => [rowId, ...readers.map((r) => r(fields))],
  };
  byTable.set(table, made);
  return made;
}
