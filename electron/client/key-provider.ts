/** Which key an operation sends (spec 5): Bearer for compute/stream, x-api-key for imagery search. */
export type KeyKind = 'bearer' | 'search';

/** The only way services read API keys; implemented over the OS keychain (electron/keys). */
export interface KeyProvider {
  getKey(profileId: string, kind: KeyKind): Promise<string | null>;
}
