import type { KeyKind } from '../../shared/rpc/methods/keys';

/**
 * The only way the client reads API keys. The root passes the key service (electron/keys),
 * which meets this shape; the client never imports the keychain code.
 */
export interface KeyProvider {
  getKey(profileId: string, kind: KeyKind): Promise<string | null>;
}
