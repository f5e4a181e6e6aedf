import { createPinia } from 'pinia';
import { createApp } from 'vue';
import type { RpcClient } from '../../../../shared/rpc/client';
import type { Result } from '../../../../shared/rpc/errors';
import { provideRpc } from '../../../../renderer/src/api/rpc';

export type Call = { method: string; input: unknown };

/** A client that answers each call with `answer`, every call recorded. */
export function scriptedClient(answer: (method: string, input: unknown) => Promise<Result<unknown>>) {
  const calls: Call[] = [];
  const client = {
    call: (method: string, input: unknown) => {
      calls.push({ method, input });
      return answer(method, input);
    },
    on: () => () => undefined,
  } as unknown as RpcClient;
  return { client, calls };
}

/** Runs `fn` where the renderer's stores reach `client`, on a fresh Pinia. */
export function withStores<T>(client: RpcClient, fn: () => T): T {
  const app = createApp({});
  provideRpc(app, client);
  app.use(createPinia());
  return app.runWithContext(fn);
}
