import type { Result } from '../../../shared/rpc/errors';
import type { RpcTransport } from '../../../shared/rpc/client';
import type { WebSocketLike, WsEvent, WsReply, WsRequest } from '../../../shared/rpc/ws-protocol';

/**
 * The page's line to its host. `open`: calls go through. `connecting`: a socket is being opened
 * (first load or a retry). `closed`: the host is not reachable; a retry is scheduled.
 * `unauthorized`: the host answers but refuses this page's token (it restarted with a new one).
 */
export type LinkState = 'connecting' | 'open' | 'closed' | 'unauthorized';

export interface Link {
  state(): LinkState;
  /** When the next attempt starts (epoch ms), while closed or unauthorized. */
  retryAt(): number | null;
  onChange(cb: (s: LinkState) => void): () => void;
  /** Tries at once instead of waiting for the backoff. */
  retryNow(): void;
}

/** The Electron window's IPC lives as long as the window: always open. */
export const IPC_LINK: Link = {
  state: () => 'open',
  retryAt: () => null,
  onChange: () => () => undefined,
  retryNow: () => undefined,
};

/** Waits between attempts: short at first (a restart takes a second or two), then capped. */
export const BACKOFF_MS = [250, 500, 1000, 2000, 4000] as const;

export type ProbeOutcome = 'ok' | 'unauthorized' | 'unreachable';

export interface LinkDeps {
  connect(): WebSocketLike;
  /** Asks the host over HTTP whether this page's token still holds (a socket refusal has no status). */
  probe(): Promise<ProbeOutcome>;
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

const GONE = { code: 'NETWORK', message: 'The app host is not reachable: it stopped or restarted' } as const;

/**
 * RPC over a WebSocket that is opened again when it closes. The close is what says "offline":
 * calls on their way fail at once, and calls made while the line is down fail without waiting.
 * Event listeners stay registered across sockets.
 */
export function createLinkTransport(deps: LinkDeps): RpcTransport & Link {
  let state: LinkState = 'connecting';
  let socket: WebSocketLike | null = null;
  let settled: Promise<void> = Promise.resolve();
  let attempt = 0;
  let timer: unknown = null;
  let nextAt: number | null = null;
  let nextId = 1;
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const watchers = new Set<(s: LinkState) => void>();

  function set(s: LinkState, always = false): void {
    if (s === state && !always) return;
    state = s;
    for (const w of watchers) w(s);
  }

  function schedule(): void {
    const wait = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!;
    attempt++;
    nextAt = deps.now() + wait;
    timer = deps.setTimer(open, wait);
  }

  function open(): void {
    if (timer !== null) deps.clearTimer(timer);
    timer = null;
    nextAt = null;
    // A refused token stays the message while retrying: the person has something to do.
    if (state !== 'unauthorized') set('connecting');
    const ws = deps.connect();
    socket = ws;
    let opened = false;
    let done!: () => void;
    settled = new Promise<void>((r) => (done = r));
    ws.addEventListener('open', () => {
      if (socket !== ws) return;
      opened = true;
      attempt = 0;
      set('open');
      done();
    });
    ws.addEventListener('message', (ev) => {
      let msg: WsReply | WsEvent;
      try {
        msg = JSON.parse(String(ev.data)) as WsReply | WsEvent;
      } catch {
        return;
      }
      if ('id' in msg) {
        pending.get(msg.id)?.(msg.result);
        pending.delete(msg.id);
      } else {
        listeners.get(msg.event)?.forEach((cb) => cb(msg.payload));
      }
    });
    ws.addEventListener('close', () => {
      if (socket !== ws) return;
      socket = null;
      done();
      for (const resolve of pending.values()) resolve({ ok: false, error: { ...GONE } });
      pending.clear();
      if (opened || state === 'connecting') set('closed');
      void deps.probe().then((p) => {
        if (socket !== null || timer !== null) return;
        schedule();
        // Told even when the state stays: the time of the next attempt changed.
        set(p === 'unauthorized' ? 'unauthorized' : 'closed', true);
      });
    });
  }

  open();

  return {
    state: () => state,
    retryAt: () => nextAt,
    onChange(cb) {
      watchers.add(cb);
      return () => watchers.delete(cb);
    },
    retryNow() {
      if (socket === null) open();
    },
    async invoke(method, input) {
      // The first calls of a page wait for its socket to open; later ones never wait on a dead line.
      if (socket && socket.readyState === 0) await settled;
      const ws = socket;
      if (!ws || ws.readyState !== 1) return { ok: false, error: { ...GONE } };
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, input } satisfies WsRequest));
      });
    },
    on(event, cb) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(cb);
      return () => set.delete(cb);
    },
  };
}
