import type { RpcClient } from '../../../shared/rpc/client';
import type { MethodInput } from '../../../shared/rpc/contract';

/** Field preferences the Node side keeps. */
export function createSettingsService(rpc: RpcClient) {
  return {
    get: () => rpc.call('settings.get', {}),
    save: (input: MethodInput<'settings.save'>) => rpc.call('settings.save', input),
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
