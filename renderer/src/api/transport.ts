import type { Result } from '../../../shared/rpc/errors';
import type { RpcTransport } from '../../../shared/rpc/client';
import { createLinkTransport, IPC_LINK, type Link, type ProbeOutcome } from './link';

/** Whether the host still takes this page's cookie: 401 when it restarted with a new token. */
async function probeSession(): Promise<ProbeOutcome> {
  try {
    const r = await fetch('/session', { cache: 'no-store', credentials: 'same-origin' });
    return r.status === 401 ? 'unauthorized' : 'ok';
  } catch {
    return 'unreachable';
  }
}

/**
 * Electron's preload bridge when present; otherwise the browser host's WebSocket on the page's
 * own origin (its cookie carries the token), opened again whenever it closes.
 */
export function pickTransport(): { transport: RpcTransport; link: Link } {
  const bridge = window.fieldlens;
  if (bridge) {
    return {
      transport: {
        invoke: (method, input) => bridge.invoke(method, input) as Promise<Result<unknown>>,
        on: (event, cb) => bridge.on(event, cb),
      },
      link: IPC_LINK,
    };
  }
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const line = createLinkTransport({
    connect: () => new WebSocket(`${scheme}://${location.host}/rpc`),
    probe: probeSession,
    now: () => Date.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  });
  return { transport: line, link: line };
}
