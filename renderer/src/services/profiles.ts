import type { RpcClient } from '../../../shared/rpc/client';
import type { KeyKind } from '../../../shared/rpc/methods/keys';
import type { ProfileSaveInput } from '../../../shared/rpc/methods/profiles';

/** Connection profiles and their keys; a key's value goes to the main process and never comes back. */
export function createProfileService(rpc: RpcClient) {
  return {
    list: () => rpc.call('profiles.list', {}),
    save: (input: ProfileSaveInput) => rpc.call('profiles.save', input),
    remove: (id: string) => rpc.call('profiles.delete', { id }),
    select: (id: string) => rpc.call('profiles.select', { id }),
    keyStatus: (profileId: string) => rpc.call('keys.status', { profileId }),
    setKey: (profileId: string, kind: KeyKind, key: string) => rpc.call('keys.set', { profileId, kind, key }),
    deleteKey: (profileId: string, kind: KeyKind) => rpc.call('keys.delete', { profileId, kind }),
    testKey: (profileId: string, kind: KeyKind) => rpc.call('keys.test', { profileId, kind }),
    keyBackend: () => rpc.call('keys.backend', {}),
    /** The passphrase goes to the main process, which keeps only the key derived from it. */
    unlockKeyFile: (passphrase: string) => rpc.call('keys.unlock', { passphrase }),
  };
}
export type ProfileService = ReturnType<typeof createProfileService>;
