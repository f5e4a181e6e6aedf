import type { Geometry } from 'geojson';
import OpeningHours from 'opening_hours';
import { normalizeName } from '../../catalog/text';
import { shapeOf, type Condition, type Warning } from '../plan';
import type { UnreadPart } from '../refusal';

/** The columns a condition needs: none for one that a feature without the column passes ("unnamed", "not footways") or that reads no column. */
export function conditionKeys(c: Condition): string[] {
  if (c.type === 'open_now' || c.type === 'open_on' || c.type === 'open_at') return ['opening_hours'];
  if (c.type === 'absent' || c.type === 'not_match' || c.type === 'element' || c.type === 'shape') return [];
  return c.type === 'number' ? c.keys : [c.key];
}

/** What a condition may read of a feature besides its tags. */
export interface FeatureFacts {
  sourceId?: string;
  geometry: () => Geometry;
}

const tagHas = (tags: Record<string, unknown>, key: string) => tags[key] !== undefined && tags[key] !== null && tags[key] !== '';

/**
 * Conditions on a column none of the subject's layers holds ("districts open now"): tested, they
 * would fail on every feature and answer nothing for something the data cannot say. `columns`
 * are each layer's columns, null where they are not all known (a summary cut at its limit).
 */
export function unheldConditions(conditions: readonly Condition[], columns: readonly (readonly string[] | null)[], label: string): UnreadPart[] {
  if (columns.some((c) => c === null)) return [];
  const held = new Set(columns.flat() as string[]);
  return conditions
    .filter((c) => conditionKeys(c).length && !conditionKeys(c).some((k) => held.has(k)))
    .map((c) => ({ words: c.label, why: `${label} have no ${conditionKeys(c).join(' or ')} column`, part: c }));
}

/**
 * Tests of the question's conditions on a feature's tags, each counting what it read so the
 * answer can say it: how many features had no such tag or a value that could not be read.
 */
export function conditionTests(conditions: readonly Condition[], now: Date) {
  const stats = conditions.map(() => ({ missing: 0, unreadable: 0, tested: 0 }));
  const hours = new Map<string, OpeningHours | null>();
  const parseHours = (v: string) => {
    if (!hours.has(v)) {
      try {
        hours.set(v, new OpeningHours(v, null));
      } catch {
        hours.set(v, null);
      }
    }
    return hours.get(v)!;
  };
  const dayStart = (day: number) => {
    // The next such day from the service clock (today if it is that day), local time.
    const d = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    d.setDate(d.getDate() + ((day - d.getDay() + 7) % 7));
    return d;
  };
  const test = (c: Condition, tags: Record<string, unknown>, s: (typeof stats)[number], facts?: FeatureFacts): boolean => {
    s.tested++;
    if (c.type === 'absent') return !tagHas(tags, c.key);
    if (c.type === 'present') return tagHas(tags, c.key) || (s.missing++, false);
    if (c.type === 'not_match') return !c.match.some((m) => m.every((t) => tagHas(tags, t.key) && (!t.values || t.values.includes(String(tags[t.key])))));
    if (c.type === 'element' || c.type === 'shape') {
      const type = /^(node|way|relation)\//.exec(facts?.sourceId ?? '')?.[1] as 'node' | 'way' | 'relation' | undefined;
      if (c.type === 'element' && type) return c.elements.includes(type);
      if (!facts) return false;
      const shape = shapeOf(facts.geometry());
      if (c.type === 'shape') return !!shape && c.shapes.includes(shape);
      // Without an OSM id: a node is a point, a way a line or a polygon; a relation is not told apart.
      return (shape === 'point' && c.elements.includes('node')) || ((shape === 'line' || shape === 'area') && c.elements.includes('way'));
    }
    if (c.type === 'open_now' || c.type === 'open_on' || c.type === 'open_at') {
      const v = tags['opening_hours'];
      if (v === undefined || v === null || v === '') return s.missing++, false;
      const oh = parseHours(String(v));
      if (!oh) return s.unreadable++, false;
      if (c.type === 'open_now') return oh.getState(now);
      if (c.type === 'open_at') return oh.getState(new Date(now.getFullYear(), now.getMonth(), now.getDate(), c.hour, c.minute));
      const from = dayStart(c.day);
      const to = new Date(from.getFullYear(), from.getMonth(), from.getDate() + 1);
      return oh.getOpenIntervals(from, to).length > 0;
    }
    if (c.type === 'number') {
      const present = c.keys.filter((k) => tags[k] !== undefined && tags[k] !== null && tags[k] !== '');
      if (!present.length) return s.missing++, false;
      const v = Number(tags[present[0]!]);
      if (!Number.isFinite(v)) return s.unreadable++, false;
      return (c.min === undefined || v >= c.min) && (c.max === undefined || v <= c.max);
    }
    const v = tags[c.key];
    if (v === undefined || v === null || v === '') return s.missing++, false;
    if (c.type === 'equals') return c.values.includes(String(v).toLowerCase());
    if (c.type === 'text') {
      const n = normalizeName(String(v));
      return c.mode === 'is' ? n === c.text : c.mode === 'starts' ? n.startsWith(c.text) : n.includes(c.text);
    }
    return String(v).toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '').includes(c.text);
  };
  return {
    pass(tags: Record<string, unknown>, facts?: FeatureFacts): boolean {
      return conditions.every((c, k) => test(c, tags, stats[k]!, facts));
    },
    warnings(): Warning[] {
      return conditions.map((c, k) => {
        const s = stats[k]!;
        if (c.type === 'element' || c.type === 'shape' || c.type === 'not_match')
          return { code: 'reading', message: `read "${c.label}"${c.type === 'element' ? ' from the OSM id (node/, way/, relation/), else the geometry' : c.type === 'shape' ? ' from the geometry' : ''}; ${s.tested} features tested`, condition: c.type, missing: 0, unreadable: 0 };
        const key = c.type === 'open_now' || c.type === 'open_on' || c.type === 'open_at' ? 'opening_hours' : c.type === 'number' ? c.keys.join('/') : c.key;
        const when = c.type === 'open_now' ? ` at ${now.toString().slice(0, 21)} (service clock)` : '';
        const extra = [s.missing ? `${s.missing} without ${key}` : '', s.unreadable ? `${s.unreadable} whose ${key} could not be read` : ''].filter(Boolean);
        return {
          code: 'reading',
          message: `read "${c.label}" from the ${key} tag${when}${extra.length ? `; of ${s.tested} features tested, ${extra.join(' and ')} did not pass` : ''}`,
          condition: c.type,
          tag: key,
          missing: s.missing,
          unreadable: s.unreadable,
        };
      });
    },
  };
}
