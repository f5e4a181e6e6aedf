import { RpcError } from '../../shared/rpc/errors';

/** What a store may say about an entry without reading it. */
export interface SecretEntry {
  account: string;
  /** ISO time of the last write, when the store knows it. */
  setAt: string | null;
}

/**
 * Where API keys live. The keytar implementation is the only one the app uses; the in-memory
 * one exists for other units' tests. Failures of the OS keychain throw RpcError KEYCHAIN.
 */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<SecretEntry>;
  /** True when something was deleted. */
  delete(account: string): Promise<boolean>;
  list(): Promise<SecretEntry[]>;
}

export const KEYCHAIN_GUIDANCE =
  'Install and unlock a Secret Service keyring (for example gnome-keyring, or KWallet with its Secret Service enabled), then try again.';

export function keychainError(reason: string): RpcError {
  return new RpcError('KEYCHAIN', `The system keychain is not available: ${reason}. ${KEYCHAIN_GUIDANCE}`, {
    reason,
    guidance: KEYCHAIN_GUIDANCE,
  });
}
