import type { RpcClient } from '../../../shared/rpc/client';
import type { MethodInput } from '../../../shared/rpc/contract';

/** Cached questions: listed and searched, opened with their thread, run again, deleted, compared. */
export function createHistoryService(rpc: RpcClient) {
  return {
    list: (filter: MethodInput<'history.list'>) => rpc.call('history.list', filter),
    get: (id: number) => rpc.call('history.get', { id }),
    thread: (id: number) => rpc.call('history.thread', { id }),
    rerun: (id: number) => rpc.call('history.rerun', { id }),
    remove: (id: number) => rpc.call('history.delete', { id }),
    compare: (oldId: number, newId: number, toleranceMetres: number) => rpc.call('history.compare', { oldId, newId, toleranceMetres }),
  };
}
export type HistoryService = ReturnType<typeof createHistoryService>;
