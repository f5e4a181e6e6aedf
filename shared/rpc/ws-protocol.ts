import type { Result } from './errors';
import type { RpcTransport } from './client';
import { WS_MAX_FRAME_BYTES } from './limits';

/** Frames of the browser host's WebSocket: requests, replies, and pushed events. */
export type WsRequest = { id: number; method: string; input: unknown };
export type WsReply = { id: number; result: Result<unknown> };
export type WsEvent = { event: string; payload: unknown };

/** A frame the host can answer: an object with a numeric id (method and input are the router's to judge). */
export function isWsRequest(v: unknown): v is WsRequest {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Number.isSafeInteger((v as { id?: unknown }).id);
}

/** The subset of the WHATWG WebSocket used here (the browser's, or the `ws` package in tests). */
export interface WebSocketLike {
  readyState: number;
  send(data: string): void;
  close(): void;
  addEventListener(type: 'open' | 'close' | 'error', cb: () => void): void;
  addEventListener(type: 'message', cb: (ev: { data: unknown }) => void): void;
}

/** RPC transport over one WebSocket. Pending calls fail with NETWORK when the socket closes. */
export function createWsTransport(socket: WebSocketLike): RpcTransport & { ready: Promise<void>; close(): void } {
  let nextId = 1;
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const ready = new Promise<void>((resolve, reject) => {
    if (socket.readyState === 1) resolve();
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('WebSocket failed to open')));
  });
  socket.addEventListener('message', (ev) => {
    const msg = JSON.parse(String(ev.data)) as WsReply | WsEvent;
    if ('id' in msg) {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    } else {
      listeners.get(msg.event)?.forEach((cb) => cb(msg.payload));
    }
  });
  socket.addEventListener('close', () => {
    for (const resolve of pending.values())
      resolve({ ok: false, error: { code: 'NETWORK', message: 'Connection to the app host closed' } });
    pending.clear();
  });
  return {
    ready,
    close: () => socket.close(),
    async invoke(method, input) {
      await ready;
      // send() on a closed socket drops the frame silently: the call would wait forever.
      if (socket.readyState !== 1) return { ok: false, error: { code: 'NETWORK', message: 'Connection to the app host closed' } };
      const id = nextId++;
      const frame = JSON.stringify({ id, method, input } satisfies WsRequest);
      // The host closes the socket on a frame past its limit: such a call fails here, unsent.
      if (frame.length * 3 > WS_MAX_FRAME_BYTES && new TextEncoder().encode(frame).length > WS_MAX_FRAME_BYTES)
        return { ok: false, error: { code: 'VALIDATION', message: `The call is larger than the app host takes (${WS_MAX_FRAME_BYTES / 1048576} MiB)` } };
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(frame);
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
