import { describe, expect, it } from 'vitest';
import { tableNameFor } from '../../../electron/export/gpkg';
import { packLayerName } from '../../../electron/fieldkit/pack/write';

const T = Date.UTC(2026, 10, 26, 5, 3);

describe("a pack's result layer names", () => {
  it('keep the whole time when the question is long, and tell two runs apart by it', () => {
    const q = 'museums and galleries within 15 km of the old harbour of Marseille, France';
    const taken = new Set<string>();
    const first = tableNameFor(packLayerName(q, T), taken);
    const second = tableNameFor(packLayerName(q, T + 60_000), taken);
    expect(first).toMatch(/_2026_11_26_05_03$/);
    expect(second).toMatch(/_2026_11_26_05_04$/);
    expect(first.startsWith('museums_and_galleries')).toBe(true);
    expect(first.length).toBeLessThanOrEqual(48);
  });
  it('leave a short question whole', () => {
    expect(packLayerName('airports near Lyon', T)).toBe('airports near Lyon 2026-11-26 05:03');
  });
});
