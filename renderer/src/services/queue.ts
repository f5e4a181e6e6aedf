import type { RpcClient } from '../../../shared/rpc/client';
import type { EventPayload, MethodInput } from '../../../shared/rpc/contract';

/** Questions kept while offline, run by the host when the connection is back. */
export function createQueueService(rpc: RpcClient) {
  return {
    list: () => rpc.call('queue.list', {}),
    add: (input: MethodInput<'queue.add'>) => rpc.call('queue.add', input),
    edit: (id: number, query: string) => rpc.call('queue.edit', { id, query }),
    drop: (id: number) => rpc.call('queue.drop', { id }),
    onSettled: (cb: (q: EventPayload<'queue.settled'>) => void) => rpc.on('queue.settled', cb),
  };
}
export type QueueService = ReturnType<typeof createQueueService>;
