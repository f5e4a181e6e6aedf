import type { RpcClient } from '../../../shared/rpc/client';
import type { EventPayload, MethodInput } from '../../../shared/rpc/contract';

/** Export jobs of cached questions: estimate, destination (desktop), start, cancel, progress. */
export function createExportService(rpc: RpcClient) {
  return {
    estimate: (input: MethodInput<'export.estimate'>) => rpc.call('export.estimate', input),
    chooseDestination: (input: MethodInput<'export.chooseDestination'>) => rpc.call('export.chooseDestination', input),
    start: (input: MethodInput<'export.start'>) => rpc.call('export.start', input),
    cancel: (jobId: string) => rpc.call('export.cancel', { jobId }),
    onProgress: (cb: (p: EventPayload<'export.progress'>) => void) => rpc.on('export.progress', cb),
  };
}
export type ExportService = ReturnType<typeof createExportService>;
