import type { RpcClient } from '../../../shared/rpc/client';
import type { EventPayload } from '../../../shared/rpc/contract';
import type { Link } from '../api/link';

/** The app and the service it talks to: what it is, which connection is active, whether it answers, and the line to the host. */
export function createConnectionService(rpc: RpcClient, link: Link) {
  return {
    info: () => rpc.call('app.info', {}),
    active: () => rpc.call('connection.active', {}),
    health: () => rpc.call('service.health', {}),
    /** Another connection became the active one. */
    onChanged: (cb: (c: EventPayload<'connection.changed'>) => void) => rpc.on('connection.changed', cb),
    onConnectivity: (cb: (c: EventPayload<'connectivity.changed'>) => void) => rpc.on('connectivity.changed', cb),
    link,
  };
}
export type ConnectionService = ReturnType<typeof createConnectionService>;
