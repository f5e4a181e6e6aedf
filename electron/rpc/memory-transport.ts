import type { RpcTransport } from '../../shared/rpc/client';
import type { EventBus } from './events';
import type { Router } from './router';

/** Client and router in one process, as the transport-agnostic contract tests use them. */
export function createMemoryTransport(router: Router, bus: EventBus): RpcTransport {
  return {
    // A JSON round trip so nothing passes that a real transport could not carry.
    invoke: async (method, input) =>
      JSON.parse(JSON.stringify(await router.dispatch(method, JSON.parse(JSON.stringify(input ?? {}))))),
    on(event, cb) {
      return bus.subscribe((name, payload) => {
        if (name === event) cb(JSON.parse(JSON.stringify(payload)));
      });
    },
  };
}
