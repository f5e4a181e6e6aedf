import type { RpcClient } from '../../../shared/rpc/client';
import type { EventPayload, MethodInput } from '../../../shared/rpc/contract';

/** Offline area packs: estimate, write as a job, cancel, open. */
export function createPackService(rpc: RpcClient) {
  return {
    estimate: (selection: MethodInput<'pack.estimate'>) => rpc.call('pack.estimate', selection),
    create: (input: MethodInput<'pack.create'>) => rpc.call('pack.create', input),
    cancel: (jobId: string) => rpc.call('pack.cancel', { jobId }),
    open: (path: string) => rpc.call('pack.open', { path }),
    onProgress: (cb: (p: EventPayload<'pack.progress'>) => void) => rpc.on('pack.progress', cb),
  };
}
export type PackService = ReturnType<typeof createPackService>;
