import { describe, expect, it } from 'vitest';
import { compassDegrees } from '../../../renderer/src/lib/compass';
import { composerRequest, nextPointName, requestExtras } from '../../../renderer/src/lib/composer';
import { formatClock } from '../../../renderer/src/lib/format';
import { observationRows } from '../../../renderer/src/lib/results';
import { dayKey, historyTree } from '../../../renderer/src/lib/historyTree';
import { shortcutOf } from '../../../renderer/src/lib/shortcuts';
import { extraColumns, nextSort, sortRows, tableRows, type TableRow } from '../../../renderer/src/lib/table';
import { parsePreference, resolveTheme, toggledPreference } from '../../../renderer/src/lib/theme';
import type { QuerySummary } from '../../../shared/rpc/methods/history';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('theme', () => {
  it('follows the system unless a theme was chosen, and reads unknown stored values as the system', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
    expect(parsePreference('dark')).toBe('dark');
    expect(parsePreference('purple')).toBe('system');
    expect(parsePreference(null)).toBe('system');
    expect(toggledPreference('dark')).toBe('light');
    expect(toggledPreference('light')).toBe('dark');
  });
});

describe('workspace shortcuts', () => {
  it('Ctrl or Cmd+H opens History, Ctrl+K searches it, Alt+digits pick tabs, Esc cancels', () => {
    expect(shortcutOf(key('h', { ctrlKey: true }))).toBe('history');
    expect(shortcutOf(key('H', { metaKey: true }))).toBe('history');
    expect(shortcutOf(key('k', { ctrlKey: true }))).toBe('search');
    expect(shortcutOf(key('1', { altKey: true }))).toBe('ask');
    expect(shortcutOf(key('2', { altKey: true }))).toBe('street');
    expect(shortcutOf(key('3', { altKey: true }))).toBe('imagery');
    expect(shortcutOf(key('4', { altKey: true }))).toBe('history');
    expect(shortcutOf(key('Escape'))).toBe('cancel');
    expect(shortcutOf(key('r', { altKey: true }))).toBe('results');
    expect(shortcutOf(key('r', { altKey: true, shiftKey: true }))).toBeNull();
    expect(shortcutOf(key('r', { ctrlKey: true }))).toBeNull();
    // Typing, and the browser's own Ctrl+Shift+K, stay with the focused control.
    expect(shortcutOf(key('h'))).toBeNull();
    expect(shortcutOf(key('k', { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(shortcutOf(key('5', { altKey: true }))).toBeNull();
  });
});

describe('composer fields', () => {
  it('sends only what is set, trimmed, with include_stats as the interface types it', () => {
    const none = { userId: ' ', areaId: '', mode: '', includeStats: '' as const, coordinates: [], h3Ids: [] };
    expect(composerRequest(none)).toEqual({});
    const all = composerRequest({
      userId: ' analyst-7 ',
      areaId: '6f1c3c56-6f4b-5b0e-9a52-3a2f0b0c9d11',
      mode: 'fast',
      includeStats: 'false',
      coordinates: [{ id: 'pt-1', name: 'Depot', latitude: 45.75, longitude: 4.85 }],
      h3Ids: ['871fb4662ffffff'],
    });
    expect(all).toEqual({
      user_id: 'analyst-7',
      area_id: '6f1c3c56-6f4b-5b0e-9a52-3a2f0b0c9d11',
      mode: 'fast',
      include_stats: false,
      coordinates: [{ name: 'Depot', latitude: 45.75, longitude: 4.85 }],
      h3_ids: ['871fb4662ffffff'],
    });
    expect(composerRequest({ ...none, includeStats: 'auto' }).include_stats).toBe('auto');
    expect(composerRequest({ ...none, includeStats: 'true' }).include_stats).toBe(true);
  });

  it('names everything a kept request carries besides its words', () => {
    expect(requestExtras({ query: 'cafes near Depot' })).toEqual([]);
    expect(
      requestExtras({ query: 'q', coordinates: [{ name: 'Depot', latitude: 45.75, longitude: 4.85 }], h3_ids: ['a', 'b'], area_id: 'x', include_stats: false }),
    ).toEqual(['Named coordinates: Depot (45.7500, 4.8500)', 'H3 cells: 2', 'Area: x', 'Statistics: false']);
  });

  it('names new points by the first free number', () => {
    expect(nextPointName([])).toBe('Point 1');
    expect(nextPointName([{ name: 'Point 1' }, { name: 'Point 3' }])).toBe('Point 2');
  });
});

const row = (rank: number, name: string, distance: number | null, score: number | null, address = ''): TableRow => ({
  id: `f${rank}`,
  rank,
  name,
  address,
  distance,
  score,
  source: '',
  position: null,
  extra: { population: score === null ? null : Math.round(score * 1000) },
});

describe('results table order', () => {
  const rows = [row(1, 'Lyon', 12_000, 0.4), row(2, 'Bron', null, 0.9), row(3, 'airport 10', 3_000, 0.4), row(4, 'Airport 9', 45_000, null)];

  it('sorts numbers numerically and names naturally, missing values last either way, ties in service order', () => {
    expect(sortRows(rows, { key: 'distance', dir: 'asc' }).map((r) => r.rank)).toEqual([3, 1, 4, 2]);
    expect(sortRows(rows, { key: 'distance', dir: 'desc' }).map((r) => r.rank)).toEqual([4, 1, 3, 2]);
    // 0.9 first; the two 0.4 keep their order (1 before 3); no score last.
    expect(sortRows(rows, { key: 'score', dir: 'desc' }).map((r) => r.rank)).toEqual([2, 1, 3, 4]);
    // Case-insensitive and "9" before "10".
    expect(sortRows(rows, { key: 'name', dir: 'asc' }).map((r) => r.name)).toEqual(['Airport 9', 'airport 10', 'Bron', 'Lyon']);
    expect(rows.map((r) => r.rank)).toEqual([1, 2, 3, 4]);
  });

  it('sorts a chosen column by its property, and offers every property and uploaded attribute', () => {
    // populations 400, 900, 400, none
    expect(sortRows(rows, { key: 'x:population', dir: 'desc' }).map((r) => r.rank)).toEqual([2, 1, 3, 4]);
    const features = [
      { id: 'a', type: 'Feature', geometry: null, properties: { name: 'A', address: '', score: 1, distance_meters: 0, source: { name: 's' }, population: 5, attributes: { site_code: 'X1' } } },
      { id: 'b', type: 'Feature', geometry: null, properties: { name: 'B', address: '', score: 1, distance_meters: 0, source: { name: 's' }, iata: 'LYS' } },
    ];
    const made = tableRows(features as never);
    expect(extraColumns(made)).toEqual(['population', 'site_code', 'iata']);
    expect(made[0]!.extra).toEqual({ population: 5, site_code: 'X1' });
  });

  it('flips the direction on the same column and starts a new one ascending (score descending)', () => {
    expect(nextSort({ key: 'rank', dir: 'asc' }, 'rank')).toEqual({ key: 'rank', dir: 'desc' });
    expect(nextSort({ key: 'rank', dir: 'desc' }, 'name')).toEqual({ key: 'name', dir: 'asc' });
    expect(nextSort({ key: 'name', dir: 'asc' }, 'score')).toEqual({ key: 'score', dir: 'desc' });
  });
});

const summary = (id: number, startedAt: number, remoteId: string | null, searchId: string | null = null): QuerySummary => ({
  id,
  kind: 'compute',
  profileId: 'local',
  queryText: `q${id}`,
  outcome: 'ok',
  remoteId,
  searchId,
  rerunOf: null,
  answerStatus: null,
  answerContent: null,
  featureCount: 0,
  numberMatched: 0,
  numberReturned: 0,
  usageMeters: null,
  page: null,
  pageTotal: null,
  region: null,
  startedAt,
  finishedAt: startedAt,
  durationMs: 0,
  serverDurationMs: null,
  httpStatus: null,
  bbox: null,
});

describe('history as a tree by day', () => {
  it('groups by local day and puts follow-ups under the entry they continued, in the order asked', () => {
    const now = new Date(2026, 10, 23, 15, 0).getTime();
    const today = (h: number) => new Date(2026, 10, 23, h, 0).getTime();
    const yesterday = new Date(2026, 10, 22, 9, 0).getTime();
    const older = new Date(2026, 10, 2, 9, 0).getTime();
    // Newest first, as history.list returns them.
    const items = [
      summary(6, today(14), 'r6', 'r1'),
      summary(5, today(13), 'r5', 'r2'),
      summary(4, today(12), 'r4', 'r1'),
      summary(2, today(11), 'r2', 'r1'),
      summary(1, today(10), 'r1'),
      summary(3, yesterday, 'r3', 'r-elsewhere'),
      summary(7, older, null),
    ];
    const groups = historyTree(items, now);
    expect(groups.map((g) => g.label)).toEqual(['Today', 'Yesterday', new Date(2026, 10, 2).toLocaleDateString('en-US', { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' })]);
    expect(groups[0]!.key).toBe('2026-11-23');
    expect(groups[0]!.entries.map((e) => [e.item.id, e.depth])).toEqual([
      [1, 0],
      [2, 1],
      [5, 2],
      [4, 1],
      [6, 1],
    ]);
    // A follow-up whose parent is not listed that day stands at the top.
    expect(groups[1]!.entries.map((e) => [e.item.id, e.depth])).toEqual([[3, 0]]);
    expect(dayKey(older)).toBe('2026-11-02');
  });

  it('lists every entry once even when the data loops', () => {
    const t = new Date(2026, 0, 5, 10).getTime();
    const groups = historyTree([summary(1, t, 'a', 'b'), summary(2, t, 'b', 'a')], t);
    expect(groups[0]!.entries.map((e) => e.item.id).sort()).toEqual([1, 2]);
  });
});

describe('facings and durations', () => {
  it('reads a compass text as degrees clockwise from north', () => {
    expect(compassDegrees('North (N)')).toBe(0);
    expect(compassDegrees('North-East (NE)')).toBe(45);
    expect(compassDegrees('South-South-West (SSW)')).toBe(202.5);
    expect(compassDegrees('west')).toBe(270);
    expect(compassDegrees('370')).toBe(10);
    expect(compassDegrees('sideways')).toBeNull();
    expect(compassDegrees(null)).toBeNull();
  });

  it('writes a video length as a clock', () => {
    expect(formatClock(75)).toBe('1:15');
    expect(formatClock(59.7)).toBe('1:00');
    expect(formatClock(3725)).toBe('1:02:05');
    expect(formatClock(0)).toBe('0:00');
  });
});

describe('stream cards', () => {
  const obs = (props: Record<string, unknown>) => ({
    type: 'Feature' as const,
    id: 'o1',
    geometry: { type: 'Point' as const, coordinates: [2.35, 48.85] as [number, number] },
    properties: {
      address: 'Paris', date: '2024-03-05T10:15:00', year: '2024', month: '03', source: 'City survey', owner: 'Ana', feature_name: 'street',
      image_url: 'https://x/img.jpg', is_video: false, video_id: null, video_url: null, duration: null, interactive: false, ...props,
    },
  });

  it('marks withheld media, 360° captures and videos with their link and length', () => {
    const [plain] = observationRows([obs({})]);
    expect(plain).toMatchObject({ redacted: false, badges: [], video: null, source: 'City survey', facing: null });
    const [redacted] = observationRows([obs({ image_url: null, interactive: true, compass: 'East (E)' })]);
    expect(redacted).toMatchObject({ redacted: true, imageUrl: null, badges: ['360°'], facing: 90 });
    const [video] = observationRows([obs({ is_video: true, video_id: 'v9', video_url: 'https://x/v9', duration: 75, heading: 12.5 })]);
    expect(video).toMatchObject({ badges: ['Video'], video: { url: 'https://x/v9', id: 'v9', duration: 75 }, facing: 12.5 });
  });

  it('shows the class the detector saw, with its boxes for the viewer; keyword matches get no such badge', () => {
    const detections = [
      { label: 'car', score: 0.64, box: [265, 184, 107, 44], model: 'nanodet-coco@x' },
      { label: 'car', score: 'high', box: [1, 2, 3, 4] },
      { label: 'car', score: 0.5, box: [1, 2, 3] },
    ];
    const [seen] = observationRows([obs({ feature_name: 'car', match: 'seen', score: 0.64, detections })]);
    expect(seen!.badges).toEqual(['Seen: car 64%']);
    expect(seen!.subtitle).toBe('car · Ana');
    expect(seen!.seen).toEqual([{ label: 'car', score: 0.64, box: [265, 184, 107, 44] }]);
    const [text] = observationRows([obs({ feature_name: 'potholes', match: 'text' })]);
    expect(text!.badges).toEqual([]);
    expect(text!.seen).toEqual([]);
  });
});
