import { RpcError } from '../../shared/rpc/errors';
import type { KeyFileStore } from './file-store';
import { KEYCHAIN_GUIDANCE, type SecretStore } from './secret-store';

export type KeyBackend = 'keychain' | 'file' | 'none';

/** A SecretStore that says where it keeps keys and can be pointed at the key file. */
export interface KeyStoreWithFallback extends SecretStore {
  /** Where keys are kept now: asks the keychain once when it has not been asked yet. */
  backend(): Promise<KeyBackend>;
  /** Opens (or makes) the key file: from then on keys are kept there. */
  unlockFile(passphrase: string): Promise<void>;
  fileExists(): boolean;
}

const FILE_GUIDANCE = 'Or type a passphrase under Settings → Connection to keep keys in an encrypted file.';

/**
 * The system keychain, and where none answers, an encrypted key file the person opens with a
 * passphrase. Once the file is open it holds every key (the keychain is no longer asked), so keys
 * never end up split between the two.
 */
export function createFallbackStore(keychain: SecretStore, file: KeyFileStore): KeyStoreWithFallback {
  /** Set once the keychain answered or failed. */
  let keychainWorks: boolean | null = null;

  async function via<T>(fn: (s: SecretStore) => Promise<T>): Promise<T> {
    if (file.unlocked) return fn(file);
    try {
      const v = await fn(keychain);
      keychainWorks = true;
      return v;
    } catch (e) {
      if (!(e instanceof RpcError) || e.code !== 'KEYCHAIN') throw e;
      keychainWorks = false;
      const reason = (e.details as { reason?: string } | undefined)?.reason ?? e.message;
      const message = file.exists()
        ? `The system keychain is not available (${reason}) and the key file is locked: type its passphrase under Settings → Connection.`
        : `${e.message} ${FILE_GUIDANCE}`;
      throw new RpcError('KEYCHAIN', message, { reason, guidance: `${KEYCHAIN_GUIDANCE} ${FILE_GUIDANCE}`, keyFile: file.exists() ? 'locked' : 'none' });
    }
  }

  return {
    get: (a) => via((s) => s.get(a)),
    set: (a, v) => via((s) => s.set(a, v)),
    delete: (a) => via((s) => s.delete(a)),
    list: () => via((s) => s.list()),
    async backend() {
      if (file.unlocked) return 'file';
      if (keychainWorks === null) await via((s) => s.list()).catch(() => undefined);
      return keychainWorks ? 'keychain' : 'none';
    },
    unlockFile: (passphrase) => file.unlock(passphrase),
    fileExists: () => file.exists(),
  };
}
