import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { SecretStore } from '../../keys/secret-store';

/** The keychain account of the evidence signing key (one per installation). */
export const SIGNING_ACCOUNT = 'fieldkit:evidence-signing-key';

export interface Signer {
  /** SubjectPublicKeyInfo DER, base64: what a bundle carries so anyone can check it. */
  publicKey: string;
  fingerprint: string;
  sign(data: Uint8Array): string;
}

/** SHA-256 of the public key's DER, hex, grouped for reading aloud. */
export function fingerprintOf(publicKeyDer: Buffer): string {
  const hex = createHash('sha256').update(publicKeyDer).digest('hex').slice(0, 32);
  return hex.match(/.{4}/g)!.join(':');
}

function signerOf(privateKey: KeyObject): Signer {
  const der = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return {
    publicKey: der.toString('base64'),
    fingerprint: fingerprintOf(der),
    sign: (data) => sign(null, data, privateKey).toString('base64'),
  };
}

/**
 * The installation's Ed25519 key: made on first use and kept in the OS keychain (never on disk).
 * Concurrent first uses share one generation; a keychain failure surfaces as KEYCHAIN and is
 * retried on the next call.
 */
export function createSigningKey(store: SecretStore) {
  let pending: Promise<Signer> | null = null;
  async function load(): Promise<Signer> {
    const pem = await store.get(SIGNING_ACCOUNT);
    if (pem) return signerOf(createPrivateKey(pem));
    const { privateKey } = generateKeyPairSync('ed25519');
    await store.set(SIGNING_ACCOUNT, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    return signerOf(privateKey);
  }
  return {
    /** The key if one was made before; null otherwise (nothing is created). */
    async existing(): Promise<Signer | null> {
      if (pending) return pending;
      const pem = await store.get(SIGNING_ACCOUNT);
      return pem ? signerOf(createPrivateKey(pem)) : null;
    },
    signer(): Promise<Signer> {
      pending ??= load().catch((e: unknown) => {
        pending = null;
        throw e;
      });
      return pending;
    },
  };
}
export type SigningKey = ReturnType<typeof createSigningKey>;

/** Checks an Ed25519 signature (base64) over data with a public key (SPKI DER, base64). */
export function checkSignature(data: Uint8Array, signature: string, publicKey: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return verify(null, data, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
