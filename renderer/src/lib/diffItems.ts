import type { MethodOutput } from '../../../shared/rpc/contract';
import type { DiffItem } from '../map/DiffLayer';

/** A comparison's rows joined to their features: what the map's diff layer draws. */
export function diffItems(result: MethodOutput<'history.compare'>): DiffItem[] {
  const geometry = new Map(result.features.map((f) => [f.id, f.geometry]));
  return result.rows.map((r) => ({ id: r.id, change: r.change, geometry: geometry.get(r.id) ?? null, from: r.from }));
}
