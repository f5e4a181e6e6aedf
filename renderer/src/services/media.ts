import type { RpcClient } from '../../../shared/rpc/client';
import type { MethodInput } from '../../../shared/rpc/contract';

/** Images of results through the Node side (kept in the cache on first view), and imagery facing a point. */
export function createMediaService(rpc: RpcClient) {
  return {
    get: (url: string) => rpc.call('media.get', { url }),
    facing: (input: MethodInput<'imagery.facing'>) => rpc.call('imagery.facing', input),
  };
}
export type MediaService = ReturnType<typeof createMediaService>;
