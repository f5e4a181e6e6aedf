import { describe, expect, it } from 'vitest';
import { LeastConnections } from '../../../electron/local-service/least-connections';

describe('least-connections hand-off', () => {
  it('has no process to give a connection to before one is added', () => {
    expect(new LeastConnections<string>().pick()).toBeUndefined();
  });

  it('splits a burst of kept-alive connections evenly, whatever the number of processes', () => {
    for (const [procs, conns] of [[2, 32], [3, 32], [4, 7]] as const) {
      const lc = new LeastConnections<number>();
      for (let w = 0; w < procs; w++) lc.add(w);
      const got = new Map<number, number>();
      for (let i = 0; i < conns; i++) {
        const w = lc.pick()!;
        got.set(w, (got.get(w) ?? 0) + 1);
      }
      // Even: every process holds floor(conns / procs) or one more.
      const lo = Math.floor(conns / procs);
      expect([...got.values()].every((n) => n === lo || n === lo + 1)).toBe(true);
      expect([...got.values()].reduce((a, b) => a + b, 0)).toBe(conns);
      expect(lc.counts().sort()).toEqual([...got.values()].sort());
    }
  });

  it('gives short connections to the processes in turn when all hold as many', () => {
    const lc = new LeastConnections<string>();
    lc.add('a');
    lc.add('b');
    lc.add('c');
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const w = lc.pick()!;
      seen.push(w);
      lc.closed(w);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('sends new connections to the process whose connections closed, and forgets a removed one', () => {
    const lc = new LeastConnections<string>();
    lc.add('a');
    lc.add('b');
    const held: string[] = [];
    for (let i = 0; i < 6; i++) held.push(lc.pick()!);
    expect(held.filter((w) => w === 'a')).toHaveLength(3);
    for (let i = 0; i < 3; i++) lc.closed('a');
    expect([lc.pick(), lc.pick(), lc.pick()]).toEqual(['a', 'a', 'a']);
    lc.remove('a');
    expect([lc.pick(), lc.pick()]).toEqual(['b', 'b']);
    expect(lc.counts()).toEqual([5]);
    // A close reported for a process that holds none changes nothing.
    lc.closed('a');
    expect(lc.counts()).toEqual([5]);
  });

  it('picks the fewest among the processes a request accepts (replicas that have replayed a write)', () => {
    const lc = new LeastConnections<string>();
    for (const w of ['a', 'b', 'c']) lc.add(w);
    // a holds 2, b 1, c 0.
    lc.pick((w) => w === 'a');
    lc.pick((w) => w === 'a');
    lc.pick((w) => w === 'b');
    expect(lc.counts()).toEqual([2, 1, 0]);
    expect(lc.pick((w) => w !== 'c')).toBe('b');
    expect(lc.pick(() => false)).toBeUndefined();
    expect(lc.counts()).toEqual([2, 2, 0]);
    expect(lc.has('c')).toBe(true);
    lc.remove('c');
    expect(lc.has('c')).toBe(false);
  });
});
