import { createRequire } from 'node:module';

/**
 * Whether a closed way is an area, decided from the iD presets (@openstreetmap/id-tagging-schema)
 * the way iD itself does: a key is an area key when some preset on that key may be drawn as an
 * area, except the values whose presets are lines only (highway=footway, barrier=fence).
 * `area=yes` / `area=no` override. Nothing about particular tags is written here.
 */

interface Preset {
  tags?: Record<string, string>;
  geometry?: string[];
  searchable?: boolean;
}

export interface AreaRules {
  isArea(tags: Record<string, string>): boolean;
}

let cached: AreaRules | null = null;

export function loadAreaRules(): AreaRules {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const presets = require('@openstreetmap/id-tagging-schema/dist/presets.min.json') as Record<string, Preset>;
  const areaKeys = new Map<string, Set<string>>(); // key -> values that are lines only
  const lineOnly = new Map<string, Set<string>>();
  const areaValues = new Map<string, Set<string>>();
  for (const p of Object.values(presets)) {
    const entries = Object.entries(p.tags ?? {});
    if (entries.length !== 1) continue;
    const [k, v] = entries[0]!;
    if (k === 'area') continue;
    const g = p.geometry ?? [];
    if (g.includes('area')) {
      if (!areaKeys.has(k)) areaKeys.set(k, new Set());
      if (v !== '*') (areaValues.get(k) ?? areaValues.set(k, new Set()).get(k)!).add(v);
    } else if (g.includes('line') && v !== '*') {
      (lineOnly.get(k) ?? lineOnly.set(k, new Set()).get(k)!).add(v);
    }
  }
  for (const [k, values] of lineOnly) {
    const excluded = areaKeys.get(k);
    if (!excluded) continue;
    for (const v of values) if (!areaValues.get(k)?.has(v)) excluded.add(v);
  }
  cached = {
    isArea(tags) {
      if (tags['area'] === 'yes') return true;
      if (tags['area'] === 'no') return false;
      for (const [k, v] of Object.entries(tags)) {
        const excluded = areaKeys.get(k);
        if (excluded && !excluded.has(v) && v !== 'no') return true;
      }
      return false;
    },
  };
  return cached;
}
