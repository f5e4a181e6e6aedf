import { describe, expect, it } from 'vitest';
import { BACKOFF_MS, createLinkTransport, type LinkState, type ProbeOutcome } from '../../../renderer/src/api/link';
import { connectionStateOf } from '../../../renderer/src/lib/connection';
import type { WebSocketLike } from '../../../shared/rpc/ws-protocol';

/** A socket the test opens, answers and closes by hand. */
class FakeSocket implements WebSocketLike {
  readyState = 0;
  sent: Array<{ id: number; method: string }> = [];
  private cbs = new Map<string, Array<(ev: { data: unknown }) => void>>();
  addEventListener(type: string, cb: (ev: { data: unknown }) => void): void {
    this.cbs.set(type, [...(this.cbs.get(type) ?? []), cb]);
  }
  private fire(type: string, data?: unknown): void {
    for (const cb of this.cbs.get(type) ?? []) cb({ data });
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as { id: number; method: string });
  }
  close(): void {
    this.drop();
  }
  accept(): void {
    this.readyState = 1;
    this.fire('open');
  }
  reply(id: number, value: unknown): void {
    this.fire('message', JSON.stringify({ id, result: { ok: true, value } }));
  }
  push(event: string, payload: unknown): void {
    this.fire('message', JSON.stringify({ event, payload }));
  }
  drop(): void {
    this.readyState = 3;
    this.fire('close');
  }
}

function harness(probe: () => ProbeOutcome) {
  const sockets: FakeSocket[] = [];
  const timers: Array<{ fn: () => void; ms: number; live: boolean }> = [];
  let clock = 1_000;
  const link = createLinkTransport({
    connect: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    probe: () => Promise.resolve(probe()),
    now: () => clock,
    setTimer: (fn, ms) => {
      const t = { fn, ms, live: true };
      timers.push(t);
      return t;
    },
    clearTimer: (t) => void ((t as { live: boolean }).live = false),
  });
  const states: LinkState[] = [];
  link.onChange((s) => states.push(s));
  const fireTimer = () => {
    const t = timers.find((x) => x.live)!;
    t.live = false;
    clock += t.ms;
    t.fn();
    return t.ms;
  };
  return { link, sockets, timers, states, fireTimer, last: () => sockets[sockets.length - 1]! };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('the line to the host', () => {
  it('fails a call on its way the moment the socket closes, and later calls without waiting', async () => {
    const h = harness(() => 'unreachable');
    h.last().accept();
    const onWay = h.link.invoke('compute.run', {});
    await flush();
    expect(h.last().sent.map((f) => f.method)).toEqual(['compute.run']);
    h.last().drop();
    expect(await onWay).toMatchObject({ ok: false, error: { code: 'NETWORK' } });
    expect(h.link.state()).toBe('closed');
    const later = await h.link.invoke('app.info', {});
    expect(later).toMatchObject({ ok: false, error: { code: 'NETWORK' } });
  });

  it('reopens with growing waits, and keeps event listeners across sockets', async () => {
    const h = harness(() => 'unreachable');
    const seen: unknown[] = [];
    h.link.on('queue.settled', (p) => seen.push(p));
    h.last().accept();
    h.last().drop();
    await flush();
    const waits: number[] = [];
    for (let i = 0; i < BACKOFF_MS.length + 1; i++) {
      expect(h.link.retryAt()).not.toBeNull();
      waits.push(h.fireTimer());
      expect(h.link.state()).toBe('connecting');
      h.last().drop();
      await flush();
    }
    expect(waits).toEqual([...BACKOFF_MS, BACKOFF_MS[BACKOFF_MS.length - 1]]);
    h.fireTimer();
    h.last().accept();
    expect(h.link.state()).toBe('open');
    h.last().push('queue.settled', { id: 7 });
    expect(seen).toEqual([{ id: 7 }]);
    // After a success the waits start short again.
    h.last().drop();
    await flush();
    expect(h.fireTimer()).toBe(BACKOFF_MS[0]);
  });

  it('says "unauthorized" when the host answers but refuses the token, until a reopen succeeds', async () => {
    let answer: ProbeOutcome = 'unreachable';
    const h = harness(() => answer);
    h.last().accept();
    answer = 'unauthorized';
    h.last().drop();
    await flush();
    expect(h.link.state()).toBe('unauthorized');
    h.fireTimer();
    expect(h.link.state()).toBe('unauthorized');
    h.last().drop();
    await flush();
    expect(h.link.state()).toBe('unauthorized');
    h.link.retryNow();
    h.last().accept();
    expect(h.states.at(-1)).toBe('open');
  });

  it('holds the first calls of a page until its socket opens', async () => {
    const h = harness(() => 'ok');
    const first = h.link.invoke('app.info', {});
    await flush();
    expect(h.last().sent).toEqual([]);
    h.last().accept();
    await flush();
    h.last().reply(h.last().sent[0]!.id, { name: 'Fieldlens' });
    expect(await first).toEqual({ ok: true, value: { name: 'Fieldlens' } });
  });
});

describe('connection state from the line and the service', () => {
  const up = { online: true, base: true, search: true, message: null };
  it('names each case', () => {
    expect(connectionStateOf('closed', up)).toEqual({ state: 'offline', cause: 'host' });
    expect(connectionStateOf('unauthorized', up)).toEqual({ state: 'offline', cause: 'token' });
    expect(connectionStateOf('connecting', up)).toEqual({ state: 'reconnecting', cause: null });
    expect(connectionStateOf('open', null)).toEqual({ state: 'reconnecting', cause: null });
    expect(connectionStateOf('open', { ...up, online: false, base: false, search: false })).toEqual({ state: 'offline', cause: 'service' });
    expect(connectionStateOf('open', { ...up, search: false })).toEqual({ state: 'degraded', cause: null });
    expect(connectionStateOf('open', up)).toEqual({ state: 'online', cause: null });
  });
});
