import { inject, type App, type InjectionKey } from 'vue';
import type { RpcClient } from '../../../shared/rpc/client';

const RPC_KEY: InjectionKey<RpcClient> = Symbol('rpc');

export function provideRpc(app: App, client: RpcClient): void {
  app.provide(RPC_KEY, client);
}

/** The RPC client for stores; components go through stores. */
export function useRpc(): RpcClient {
  const client = inject(RPC_KEY);
  if (!client) throw new Error('RPC client not provided');
  return client;
}
