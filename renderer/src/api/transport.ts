import type { Result } from '../../../shared/rpc/errors';
import type { RpcTransport } from '../../../shared/rpc/client';
import { createWsTransport } from '../../../shared/rpc/ws-protocol';

/**
 * Electron's preload bridge when present; otherwise the browser host's WebSocket on the page's
 * own origin (its cookie carries the token).
 */
export function pickTransport(): RpcTransport {
  const bridge = window.fieldlens;
  if (bridge) {
    return {
      invoke: (method, input) => bridge.invoke(method, input) as Promise<Result<unknown>>,
      on: (event, cb) => bridge.on(event, cb),
    };
  }
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return createWsTransport(new WebSocket(`${scheme}://${location.host}/rpc`));
}
