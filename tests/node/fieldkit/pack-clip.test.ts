import { describe, expect, it } from 'vitest';
import { readArea } from '../../../electron/fieldkit/pack/area';
import { clip } from '../../../electron/fieldkit/pack/select';

const round = (ring: number[][]) => ring.map(([x, y]) => `${x!.toFixed(6)},${y!.toFixed(6)}`);

describe('data layer features clipped to a pack area', () => {
  it('cuts a polygon to a drawn area: the corners worked out by hand', () => {
    // The triangle x + y <= 61 over the square 10..11 / 50..51; a square across its long side.
    const area = readArea({ polygon: [[10, 50], [11, 50], [10, 51]] });
    const g = clip({ type: 'Polygon', coordinates: [[[10.4, 50], [10.8, 50], [10.8, 50.4], [10.4, 50.4], [10.4, 50]]] }, area)!;
    expect(g.type).toBe('Polygon');
    const got = new Set(round((g as { coordinates: number[][][] }).coordinates[0]!));
    expect(got).toEqual(new Set(round([[10.4, 50], [10.8, 50], [10.8, 50.2], [10.6, 50.4], [10.4, 50.4]])));
    // Wholly outside: nothing is left.
    expect(clip({ type: 'Polygon', coordinates: [[[10.8, 50.8], [10.9, 50.8], [10.9, 50.9], [10.8, 50.8]]] }, area)).toBeNull();
  });

  it('cuts lines to the box and keeps points', () => {
    const area = readArea({ bbox: [10, 50, 11, 51] });
    expect(clip({ type: 'LineString', coordinates: [[9, 50.5], [12, 50.5]] }, area)).toEqual({ type: 'LineString', coordinates: [[10, 50.5], [11, 50.5]] });
    expect(clip({ type: 'Point', coordinates: [10.5, 50.5] }, area)).toEqual({ type: 'Point', coordinates: [10.5, 50.5] });
    expect(clip({ type: 'LineString', coordinates: [[12, 52], [13, 53]] }, area)).toBeNull();
  });

  it('closes a drawn ring and answers inside, on the edge and outside', () => {
    const area = readArea({ polygon: [[10, 50], [11, 50], [10, 51]] });
    expect(area.ring.at(-1)).toEqual([10, 50]);
    expect(area.box).toEqual([10, 50, 11, 51]);
    expect([area.contains(10.2, 50.2), area.contains(10.5, 50.5), area.contains(10.9, 50.9)]).toEqual([true, true, false]);
  });
});
