import { inject, type App, type InjectionKey } from 'vue';
import type { RpcClient } from '../../../shared/rpc/client';
import { IPC_LINK, type Link } from './link';

const RPC_KEY: InjectionKey<RpcClient> = Symbol('rpc');
const LINK_KEY: InjectionKey<Link> = Symbol('link');

/** The RPC client, and the line it runs over (always open when none is given: IPC, tests). */
export function provideRpc(app: App, client: RpcClient, link: Link = IPC_LINK): void {
  app.provide(RPC_KEY, client);
  app.provide(LINK_KEY, link);
}

/** The RPC client for stores; components go through stores. */
export function useRpc(): RpcClient {
  const client = inject(RPC_KEY);
  if (!client) throw new Error('RPC client not provided');
  return client;
}

/** The state of the line to the host, for the app store. */
export function useLink(): Link {
  return inject(LINK_KEY, IPC_LINK);
}
