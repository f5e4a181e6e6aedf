import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { RpcError } from '../../shared/rpc/errors';
import { writeFileAtomic } from '../ground/atomic-file';
import type { SecretEntry, SecretStore } from './secret-store';

/** scrypt's cost: 2^15 rounds of 8 x 1 KiB blocks, 32 MiB and about 100 ms a derivation. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
export const PASSPHRASE_MIN = 8;

interface Sealed {
  v: 1;
  kdf: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  iv: string;
  tag: string;
  data: string;
}
type Entries = Record<string, { secret: string; setAt: string }>;

const scrypt = (pass: string, salt: Buffer, o: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pass.normalize('NFC'), salt, 32, o, (e, k) => (e ? reject(e) : resolve(k))));

const locked = () => new RpcError('KEYCHAIN', 'The key file is locked: type its passphrase in Settings → Connection to open it', { reason: 'locked' });

/** A SecretStore in one file, AES-256-GCM under a key scrypt derives from a passphrase; unlock it first. */
export interface KeyFileStore extends SecretStore {
  /** Opens the file with the passphrase (or makes it, when there is none yet); a wrong one throws AUTH. */
  unlock(passphrase: string): Promise<void>;
  readonly unlocked: boolean;
  exists(): boolean;
}

/**
 * Keys where no system keychain answers (a server, a container): the file holds only ciphertext,
 * the derived key stays in this process's memory, the passphrase is never kept.
 */
export function createKeyFileStore(opts: { path: string; clock?: () => Date }): KeyFileStore {
  const clock = opts.clock ?? (() => new Date());
  let key: Buffer | null = null;
  let salt: Buffer | null = null;
  let entries: Entries = {};

  function seal(): void {
    if (!key || !salt) throw locked();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(entries), 'utf8'), cipher.final()]);
    const sealed: Sealed = { v: 1, kdf: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    writeFileAtomic(opts.path, JSON.stringify(sealed));
  }

  const open = () => {
    if (!key) throw locked();
    return entries;
  };

  return {
    get unlocked() {
      return key !== null;
    },
    exists: () => existsSync(opts.path),
    async unlock(passphrase) {
      if (passphrase.length < PASSPHRASE_MIN) throw new RpcError('VALIDATION', `The passphrase needs at least ${PASSPHRASE_MIN} characters`);
      if (!existsSync(opts.path)) {
        salt = randomBytes(16);
        key = await scrypt(passphrase, salt, SCRYPT);
        entries = {};
        seal();
        return;
      }
      const s = JSON.parse(readFileSync(opts.path, 'utf8')) as Sealed;
      const fileSalt = Buffer.from(s.salt, 'base64');
      const k = await scrypt(passphrase, fileSalt, { N: s.N, r: s.r, p: s.p, maxmem: SCRYPT.maxmem });
      try {
        const d = createDecipheriv('aes-256-gcm', k, Buffer.from(s.iv, 'base64'));
        d.setAuthTag(Buffer.from(s.tag, 'base64'));
        entries = JSON.parse(Buffer.concat([d.update(Buffer.from(s.data, 'base64')), d.final()]).toString('utf8')) as Entries;
      } catch {
        throw new RpcError('AUTH', 'That passphrase does not open the key file');
      }
      key = k;
      salt = fileSalt;
    },
    get: async (account) => open()[account]?.secret ?? null,
    set: async (account, secret) => {
      const setAt = clock().toISOString();
      open()[account] = { secret, setAt };
      seal();
      return { account, setAt };
    },
    delete: async (account) => {
      const e = open();
      if (!(account in e)) return false;
      delete e[account];
      seal();
      return true;
    },
    list: async () => Object.entries(open()).map(([account, e]): SecretEntry => ({ account, setAt: e.setAt })),
  };
}
