import { createPinia } from 'pinia';
import { createApp } from 'vue';
import type { RpcClient } from '../../../../shared/rpc/client';
import type { Result } from '../../../../shared/rpc/errors';
import { provideRpc } from '../../../../renderer/src/api/rpc';

export type Call = { method: string; input: unknown };

/** An RPC client whose answers the test scripts; every call is recorded, and `emit` plays an event. */
export function scriptedClient(answer: (method: string, input: unknown) => Promise<Result<unknown>>) {
  const calls: Call[] = [];
  const listeners = new Map<string, (p: unknown) => void>();
  const client = {
    call: (method: string, input: unknown) => {
      calls.push({ method, input });
      return answer(method, input);
    },
    on: (event: string, cb: (p: unknown) => void) => {
      listeners.set(event, cb);
      return () => listeners.delete(event);
    },
  } as unknown as RpcClient;
  return { client, calls, emit: (event: string, p: unknown) => listeners.get(event)?.(p) };
}

/** One app whose stores reach `client`: every `run` shares its Pinia. */
export function storesApp(client: RpcClient): <T>(fn: () => T) => T {
  const app = createApp({});
  provideRpc(app, client);
  app.use(createPinia());
  return (fn) => app.runWithContext(fn);
}

/** Runs `fn` where the renderer's stores reach `client`, on a fresh Pinia. */
export function withStores<T>(client: RpcClient, fn: () => T): T {
  return storesApp(client)(fn);
}
