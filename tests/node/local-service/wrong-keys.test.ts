import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createWrongKeys } from '../../../electron/local-service/team/wrong-keys';

describe('wrong keys per address', () => {
  it('holds an address after its limit, lets it go as the minute passes, and logs once a minute per address', () => {
    let t = 0;
    const logger = createMemoryLogger();
    const w = createWrongKeys({ perMinute: 3, logger, now: () => t });
    for (let i = 0; i < 3; i++) {
      expect(w.held('10.0.0.1')).toBe(0);
      w.failed('10.0.0.1');
    }
    // 3 a minute: one comes back every 20 s.
    expect(w.held('10.0.0.1')).toBe(20);
    expect(w.held('10.0.0.2')).toBe(0);
    w.failed('10.0.0.2');
    t = 20_000;
    expect(w.held('10.0.0.1')).toBe(0);
    w.failed('10.0.0.1');
    w.failed('10.0.0.1');
    t = 61_000;
    w.failed('10.0.0.1');
    const lines = logger.lines.map((l) => JSON.parse(l) as { msg: string; detail: { address: string; failures: number } });
    // The first failure of each address at once, then the 5 more of 10.0.0.1 after the minute.
    expect(lines.map((l) => [l.detail.address, l.detail.failures])).toEqual([
      ['10.0.0.1', 1],
      ['10.0.0.2', 1],
      ['10.0.0.1', 5],
    ]);
  });
});
