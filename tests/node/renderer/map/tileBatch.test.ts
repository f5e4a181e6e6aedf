import { describe, expect, it } from 'vitest';
import { createTileBatch, type BatchTimers } from '../../../../renderer/src/map/tileBatch';

/** Timers run by hand: `fire()` runs what is due, so a test says when the wait has passed. */
function handTimers() {
  let due: (() => void) | null = null;
  const timers: BatchTimers = {
    setTimeout: (run) => (due = run),
    clearTimeout: () => (due = null),
  };
  return { timers, pending: () => due !== null, fire: () => due?.() };
}

/** A load the test settles when it likes. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const turn = () => new Promise<void>((r) => setTimeout(r, 0));

describe('handing a view\'s tiles to the map together', () => {
  it('holds made tiles until the last one of the view is in, then applies them all, failures included', async () => {
    const { timers } = handTimers();
    const batch = createTileBatch(400, timers);
    const loads = [deferred<string>(), deferred<string>(), deferred<string>()];
    const applied: string[] = [];
    loads.forEach((d, i) => batch.add(() => d.promise, (v) => applied.push(v), () => applied.push(`failed ${i}`)));
    loads[0]!.resolve('a');
    loads[2]!.reject(new Error('no tile'));
    await turn();
    expect(applied).toEqual([]);
    loads[1]!.resolve('b');
    await turn();
    expect(applied).toEqual(['a', 'failed 2', 'b']);
  });

  it('lets the tiles in hand go after the longest wait, so one slow tile does not hold the rest', async () => {
    const clock = handTimers();
    const batch = createTileBatch(400, clock.timers);
    const fast = deferred<string>();
    const slow = deferred<string>();
    const applied: string[] = [];
    batch.add(() => fast.promise, (v) => applied.push(v), () => applied.push('failed'));
    batch.add(() => slow.promise, (v) => applied.push(v), () => applied.push('failed'));
    fast.resolve('fast');
    await turn();
    expect(applied).toEqual([]);
    expect(clock.pending()).toBe(true);
    clock.fire();
    expect(applied).toEqual(['fast']);
    slow.resolve('slow');
    await turn();
    expect(applied).toEqual(['fast', 'slow']);
    expect(clock.pending()).toBe(false);
  });

  it('fails a tile whose loader throws instead of leaving the batch waiting for it', async () => {
    const { timers } = handTimers();
    const batch = createTileBatch(400, timers);
    const applied: string[] = [];
    batch.add(
      () => {
        throw new Error('bad address');
      },
      () => applied.push('applied'),
      () => applied.push('failed'),
    );
    await turn();
    expect(applied).toEqual(['failed']);
  });
});
