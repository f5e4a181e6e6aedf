import type { EventName, EventPayload, MethodInput, MethodName, MethodOutput } from './contract';
import type { Result } from './errors';

/** What any transport (Electron preload, WebSocket, in-memory) gives the client. */
export interface RpcTransport {
  invoke(method: string, input: unknown): Promise<Result<unknown>>;
  on(event: string, cb: (payload: unknown) => void): () => void;
}

export interface RpcClient {
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodOutput<M>>>;
  on<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): () => void;
}

/**
 * Typed face over a transport. Outputs were validated by the router before they left the
 * Node side, so the client only narrows types here; a transport failure becomes an envelope.
 */
export function createRpcClient(transport: RpcTransport): RpcClient {
  return {
    async call(method, input) {
      try {
        return (await transport.invoke(method, input)) as Result<never>;
      } catch (e) {
        return { ok: false, error: { code: 'NETWORK', message: `RPC transport failed: ${(e as Error).message}` } };
      }
    },
    on(event, cb) {
      return transport.on(event, cb as (p: unknown) => void);
    },
  };
}
