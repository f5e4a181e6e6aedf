import { responseItems } from '../../shared/service/items';
import type { CacheDb } from './db';
import { itemId, rec } from './rows';
import { get } from './search';
import { geometryBBox } from './spatial';
import type { QueryRecord } from './types';

export type Change = 'added' | 'removed' | 'moved' | 'changed';

export interface PlaceDiffRow {
  id: string;
  change: Change;
  name: string | null;
  /** How far it moved (moved and changed rows); null for added and removed. */
  movedMetres: number | null;
  /** Where a moved item was before ([lon, lat]); null for the other changes. */
  from: [number, number] | null;
}

export interface PlaceDiff {
  oldId: number;
  newId: number;
  toleranceMetres: number;
  /** How rows were paired. */
  key: DiffKey;
  rows: PlaceDiffRow[];
  unchanged: number;
  /** One GeoJSON feature per row (where the item has a position): its properties plus `change`. */
  features: { type: 'Feature'; id: string; geometry: unknown; properties: Record<string, unknown> }[];
}

const EARTH_RADIUS_M = 6_371_008.8;

function metres(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** An item's position: the point itself, else the centre of its box. */
function positionOf(item: Record<string, unknown>): [number, number] | null {
  const b = geometryBBox(item['geometry']);
  return b ? [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] : null;
}

const propertiesOf = (kind: QueryRecord['kind'], item: Record<string, unknown>) => {
  if (kind === 'imagery') {
    const { geometry: _g, ...rest } = item;
    void _g;
    return rest;
  }
  return rec(item['properties']);
};

function items(q: QueryRecord): Map<string, Record<string, unknown>> {
  const m = new Map<string, Record<string, unknown>>();
  if (q.raw === null || q.outcome !== 'ok') return m;
  try {
    responseItems(q.kind, JSON.parse(q.raw)).map(rec).forEach((item, i) => m.set(itemId(item, i), item));
  } catch {
    // a body that is not JSON has no items
  }
  return m;
}

/** How the rows of two runs are paired: the answers' item ids, or for uploads a stable key of the file's rows. */
export type DiffKey = 'item id' | 'id column' | 'name column' | 'position';

const isUpload = (item: Record<string, unknown>) => rec(item['properties'])['kind'] === 'upload';
const attributesOf = (item: Record<string, unknown>) => rec(rec(item['properties'])['attributes']);

/** The value of an upload row a key reads: its id column's, or its name column's; null where the row has none. */
function uploadKey(item: Record<string, unknown>, key: 'id column' | 'name column'): string | null {
  const props = rec(item['properties']);
  const v = key === 'id column' ? props['source_id'] : props['name'];
  if (typeof v !== 'string' || v === '') return null;
  // The value is a column's only where the row holds it (a file without one numbers its rows, "<file> row n").
  return Object.values(attributesOf(item)).some((a) => String(a) === v) ? v : null;
}

/** Whether every row of each side has the key, once on its side. */
function keyHolds(sides: Map<string, Record<string, unknown>>[], key: 'id column' | 'name column'): boolean {
  return sides.every((side) => {
    const seen = new Set<string>();
    for (const item of side.values()) {
      const k = uploadKey(item, key);
      if (k === null || seen.has(k)) return false;
      seen.add(k);
    }
    return true;
  });
}

/**
 * Pairs of old and new item ids (null on the side that lacks it). Uploads are named after their
 * file and row, so a file sent again under another name or with a row dropped would pair nothing
 * or the wrong rows: they pair by their id column, else their name column, else the nearest row
 * within the tolerance.
 */
function pairItems(before: Map<string, Record<string, unknown>>, after: Map<string, Record<string, unknown>>, toleranceMetres: number): { key: DiffKey; pairs: [string | null, string | null][] } {
  const all = [...before.values(), ...after.values()];
  if (all.length === 0 || !all.every(isUpload)) {
    const pairs: [string | null, string | null][] = [...after.keys()].map((id) => [before.has(id) ? id : null, id]);
    for (const id of before.keys()) if (!after.has(id)) pairs.push([id, null]);
    return { key: 'item id', pairs };
  }
  for (const key of ['id column', 'name column'] as const) {
    if (!keyHolds([before, after], key)) continue;
    const oldByKey = new Map([...before].map(([id, item]) => [uploadKey(item, key)!, id]));
    const newKeys = new Set<string>();
    const pairs: [string | null, string | null][] = [];
    for (const [id, item] of after) {
      const k = uploadKey(item, key)!;
      newKeys.add(k);
      pairs.push([oldByKey.get(k) ?? null, id]);
    }
    for (const [k, id] of oldByKey) if (!newKeys.has(k)) pairs.push([id, null]);
    return { key, pairs };
  }
  // Nearest first: each row pairs with the closest row of the other run within the tolerance.
  const candidates: { o: string; n: string; d: number }[] = [];
  for (const [n, now] of after) {
    const p1 = positionOf(now);
    if (!p1) continue;
    for (const [o, old] of before) {
      const p0 = positionOf(old);
      const d = p0 ? metres(p0, p1) : Infinity;
      if (d <= toleranceMetres) candidates.push({ o, n, d });
    }
  }
  candidates.sort((a, b) => a.d - b.d);
  const oldOf = new Map<string, string>();
  const taken = new Set<string>();
  for (const c of candidates) {
    if (oldOf.has(c.n) || taken.has(c.o)) continue;
    oldOf.set(c.n, c.o);
    taken.add(c.o);
  }
  const pairs: [string | null, string | null][] = [...after.keys()].map((n) => [oldOf.get(n) ?? null, n]);
  for (const o of before.keys()) if (!taken.has(o)) pairs.push([o, null]);
  return { key: 'position', pairs };
}

/** What is compared for "changed": an upload's own columns (its file's name, score and distance are the run's). */
const comparedOf = (kind: QueryRecord['kind'], item: Record<string, unknown>) => (isUpload(item) ? attributesOf(item) : propertiesOf(kind, item));

/**
 * What changed between two answers to one question: added, removed, moved further than the
 * tolerance (great-circle metres between positions), and changed (same place, other
 * properties), rows paired as pairItems says. Unchanged items are counted only.
 */
export function placeDiff(c: CacheDb, oldId: number, newId: number, toleranceMetres: number): PlaceDiff {
  const a = get(c, oldId);
  const b = get(c, newId);
  if (!a || !b) throw new Error('Both queries must be cached');
  const before = items(a);
  const after = items(b);
  const { key, pairs } = pairItems(before, after, toleranceMetres);
  const out: PlaceDiff = { oldId, newId, toleranceMetres, key, rows: [], unchanged: 0, features: [] };
  const add = (id: string, change: Change, item: Record<string, unknown>, kind: QueryRecord['kind'], movedMetres: number | null, from: [number, number] | null = null) => {
    const props = propertiesOf(kind, item);
    const name = typeof props['name'] === 'string' ? props['name'] : typeof props['feature_name'] === 'string' ? props['feature_name'] : typeof props['address'] === 'string' ? props['address'] : null;
    out.rows.push({ id, change, name, movedMetres, from });
    if (item['geometry'])
      out.features.push({ type: 'Feature', id, geometry: item['geometry'], properties: { ...props, change, moved_m: movedMetres === null ? null : Math.round(movedMetres * 10) / 10 } });
  };
  for (const [o, n] of pairs) {
    if (n === null) continue;
    const now = after.get(n)!;
    const old = o === null ? undefined : before.get(o);
    if (!old) {
      add(n, 'added', now, b.kind, null);
      continue;
    }
    const p0 = positionOf(old);
    const p1 = positionOf(now);
    const moved = p0 && p1 ? metres(p0, p1) : 0;
    if (moved > toleranceMetres) add(n, 'moved', now, b.kind, moved, p0);
    else if (JSON.stringify(comparedOf(a.kind, old)) !== JSON.stringify(comparedOf(b.kind, now))) add(n, 'changed', now, b.kind, moved);
    else out.unchanged++;
  }
  for (const [o, n] of pairs) if (n === null && o !== null) add(o, 'removed', before.get(o)!, a.kind, null);
  return out;
}
