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

/**
 * What changed between two answers to one question, by item id: added, removed, moved further
 * than the tolerance (great-circle metres between positions), and changed (same place, other
 * properties). Unchanged items are counted only.
 */
export function placeDiff(c: CacheDb, oldId: number, newId: number, toleranceMetres: number): PlaceDiff {
  const a = get(c, oldId);
  const b = get(c, newId);
  if (!a || !b) throw new Error('Both queries must be cached');
  const before = items(a);
  const after = items(b);
  const out: PlaceDiff = { oldId, newId, toleranceMetres, rows: [], unchanged: 0, features: [] };
  const add = (id: string, change: Change, item: Record<string, unknown>, kind: QueryRecord['kind'], movedMetres: number | null, from: [number, number] | null = null) => {
    const props = propertiesOf(kind, item);
    const name = typeof props['name'] === 'string' ? props['name'] : typeof props['feature_name'] === 'string' ? props['feature_name'] : typeof props['address'] === 'string' ? props['address'] : null;
    out.rows.push({ id, change, name, movedMetres, from });
    if (item['geometry'])
      out.features.push({ type: 'Feature', id, geometry: item['geometry'], properties: { ...props, change, moved_m: movedMetres === null ? null : Math.round(movedMetres * 10) / 10 } });
  };
  for (const [id, now] of after) {
    const old = before.get(id);
    if (!old) {
      add(id, 'added', now, b.kind, null);
      continue;
    }
    const p0 = positionOf(old);
    const p1 = positionOf(now);
    const moved = p0 && p1 ? metres(p0, p1) : 0;
    if (moved > toleranceMetres) add(id, 'moved', now, b.kind, moved, p0);
    else if (JSON.stringify(propertiesOf(a.kind, old)) !== JSON.stringify(propertiesOf(b.kind, now))) add(id, 'changed', now, b.kind, moved);
    else out.unchanged++;
  }
  for (const [id, old] of before) if (!after.has(id)) add(id, 'removed', old, a.kind, null);
  return out;
}
