import type { RpcClient } from '../../../shared/rpc/client';

/** The offline cache as a whole: its size on disk, and compacting it. */
export function createCacheService(rpc: RpcClient) {
  return {
    stats: () => rpc.call('cache.stats', {}),
    compact: () => rpc.call('cache.vacuum', {}),
  };
}
export type CacheService = ReturnType<typeof createCacheService>;
