import type { RpcClient } from '../../../shared/rpc/client';
import type { MethodInput } from '../../../shared/rpc/contract';
import type { CancelMethod } from '../panels/registry';

/** The panels' service runs: ask, observations, imagery, and cancelling one by its run id. */
export function createRunService(rpc: RpcClient) {
  return {
    compute: (input: MethodInput<'compute.run'>) => rpc.call('compute.run', input),
    stream: (input: MethodInput<'stream.run'>) => rpc.call('stream.run', input),
    imagery: (input: MethodInput<'imagery.search'>) => rpc.call('imagery.search', input),
    cancel: (method: CancelMethod, runId: string) => rpc.call(method, { runId }),
  };
}
export type RunService = ReturnType<typeof createRunService>;
