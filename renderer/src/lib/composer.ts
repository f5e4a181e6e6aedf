import type { ComputeRequestInput } from '../../../shared/service/compute';

/** A named coordinate of the composer; `id` is local, the service sees name, latitude, longitude. */
export interface NamedPoint {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
}

export type IncludeStats = 'auto' | 'true' | 'false';

/** The "More" fields of a compute question, as the composer holds them. */
export interface ComposerFields {
  userId: string;
  areaId: string;
  mode: string;
  includeStats: IncludeStats | '';
  coordinates: readonly NamedPoint[];
  h3Ids: readonly string[];
}

/** "Point 1", "Point 2"…: the first number not taken by an existing name. */
export function nextPointName(existing: readonly { name: string }[]): string {
  const taken = new Set(existing.map((p) => p.name));
  for (let i = 1; ; i++) if (!taken.has(`Point ${i}`)) return `Point ${i}`;
}

/** Rounds to 6 decimals (about 0.1 m): more digits only add noise to a request. */
export const roundCoord = (v: number): number => Math.round(v * 1e6) / 1e6;

/**
 * The request fields the composer adds to a question: only those set, trimmed, in the
 * interface's names. An empty list or blank text sends nothing, so the service's defaults hold.
 */
export function composerRequest(f: ComposerFields): Partial<ComputeRequestInput> {
  const out: Partial<ComputeRequestInput> = {};
  if (f.userId.trim()) out.user_id = f.userId.trim();
  if (f.areaId.trim()) out.area_id = f.areaId.trim();
  if (f.mode.trim()) out.mode = f.mode.trim();
  if (f.includeStats === 'auto') out.include_stats = 'auto';
  else if (f.includeStats) out.include_stats = f.includeStats === 'true';
  if (f.coordinates.length)
    out.coordinates = f.coordinates.map((p) => ({ name: p.name.trim() || p.id, latitude: p.latitude, longitude: p.longitude }));
  if (f.h3Ids.length) out.h3_ids = [...f.h3Ids];
  return out;
}

/**
 * What a kept request carries besides its words, one line each, so nothing set in the composer
 * reaches a question unseen ("Named coordinates: Site A (45.76, 4.84)").
 */
export function requestExtras(request: Record<string, unknown>): string[] {
  const out: string[] = [];
  const coords = Array.isArray(request['coordinates']) ? (request['coordinates'] as Array<{ name?: unknown; latitude?: unknown; longitude?: unknown }>) : [];
  if (coords.length)
    out.push(`Named coordinates: ${coords.map((c) => `${String(c.name ?? '')} (${Number(c.latitude).toFixed(4)}, ${Number(c.longitude).toFixed(4)})`).join('; ')}`);
  const cells = Array.isArray(request['h3_ids']) ? request['h3_ids'].length : 0;
  if (cells) out.push(`H3 cells: ${cells}`);
  if (typeof request['area_id'] === 'string') out.push(`Area: ${request['area_id']}`);
  if (typeof request['user_id'] === 'string') out.push(`User: ${request['user_id']}`);
  if (typeof request['mode'] === 'string') out.push(`Mode: ${request['mode']}`);
  if (request['include_stats'] !== undefined) out.push(`Statistics: ${String(request['include_stats'])}`);
  if (typeof request['search_id'] === 'string') out.push('Continues an earlier answer');
  return out;
}
