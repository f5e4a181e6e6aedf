import type { RpcClient } from '../../../shared/rpc/client';
import type { MethodInput } from '../../../shared/rpc/contract';

/** Evidence bundles: made of a cached result, checked, and the key that signs them. */
export function createEvidenceService(rpc: RpcClient) {
  return {
    // Vehicles are blurred only beside faces (the switch is greyed out without them).
    create: (queryId: number, blurFaces: boolean, blurVehicles = false) =>
      rpc.call('evidence.create', { queryId, blurFaces, ...(blurFaces && blurVehicles ? { blurVehicles } : {}) }),
    verify: (input: MethodInput<'evidence.verify'>) => rpc.call('evidence.verify', input),
    key: () => rpc.call('evidence.key', {}),
  };
}
export type EvidenceService = ReturnType<typeof createEvidenceService>;
