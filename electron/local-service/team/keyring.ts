import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Keys of a team service, one user per key, stored only as scrypt hashes. A key reads
 * `fl_<key id>_<secret>`; the users file holds `<user> <key id> scrypt$N$r$p$<salt>$<hash>` lines
 * (base64url), so a request costs one scrypt against one entry, never a scan. A key that passed
 * once is remembered for the process as a SHA-256 of it (in memory only), so scrypt's cost is
 * paid once per key, not per request.
 */

const scryptAsync = promisify(scrypt) as (key: string, salt: Buffer, len: number, opts: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LEN = 32;
const KEY_FORM = /^fl_([a-z0-9]{8,32})_([A-Za-z0-9_-]{20,128})$/;

export interface KeyEntry {
  user: string;
  keyId: string;
  hash: string;
}

export interface Principal {
  /** null on a single-key service (the user, if any, is the request's user_id). */
  user: string | null;
  /** Which key: rate limits count per key. */
  keyId: string;
}

const b64 = (b: Buffer) => b.toString('base64url');

/** A new key and the users-file line that admits it; the key itself is shown once and kept nowhere. */
export async function newKey(user: string): Promise<{ key: string; line: string }> {
  if (!/^[\w.@-]{1,64}$/.test(user)) throw new Error(`user names are letters, digits and . _ @ - (got "${user}")`);
  const keyId = randomBytes(6).toString('hex');
  const key = `fl_${keyId}_${b64(randomBytes(24))}`;
  const salt = randomBytes(16);
  const hash = await scryptAsync(key, salt, KEY_LEN, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return { key, line: `${user} ${keyId} scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${b64(salt)}$${b64(hash)}` };
}

/** Reads a users file; blank lines and # comments skipped. Throws naming the line of a malformed entry. */
export function parseUsersFile(text: string): KeyEntry[] {
  const out: KeyEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^(\S+)\s+([a-z0-9]{8,32})\s+(scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+)$/.exec(line);
    if (!m) throw new Error(`users file line ${i + 1}: expected "<user> <key id> scrypt$N$r$p$salt$hash" (make one with --new-key USER)`);
    out.push({ user: m[1]!, keyId: m[2]!, hash: m[3]! });
  });
  return out;
}

async function matches(key: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = stored.split('$');
  const want = Buffer.from(hash!, 'base64url');
  const got = await scryptAsync(key, Buffer.from(salt!, 'base64url'), want.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 });
  return got.length === want.length && timingSafeEqual(got, want);
}

export interface Keyring {
  verify(key: string): Promise<Principal | null>;
  /** The principal of a key that passed before (here or learnt), without scrypt; null for any other. */
  known(key: string): Principal | null;
  /**
   * A key another process of the same service checked: its SHA-256 and whose it is. Taken only
   * when the key id and user match an entry of this users file.
   */
  learn(passed: PassedKey): void;
}

/** What a process tells the others once a key passed scrypt, so each key is checked once per machine. */
export interface PassedKey {
  digest: string;
  user: string;
  keyId: string;
}

export interface KeyringOptions {
  /** A key passed scrypt here (not learnt): tell the other processes, log it. */
  onPassed?: (passed: PassedKey) => void;
}

export function createKeyring(entries: KeyEntry[], opts: KeyringOptions = {}): Keyring {
  const byId = new Map(entries.map((e) => [e.keyId, e]));
  const passed = new Map<string, Principal>();
  /** Checks under way: requests arriving together with one new key wait on one scrypt. */
  const checking = new Map<string, Promise<Principal | null>>();
  const check = async (key: string, digest: string): Promise<Principal | null> => {
    const m = KEY_FORM.exec(key);
    const entry = m ? byId.get(m[1]!) : undefined;
    if (!entry || !(await matches(key, entry.hash))) return null;
    const principal = { user: entry.user, keyId: entry.keyId };
    passed.set(digest, principal);
    opts.onPassed?.({ digest, user: entry.user, keyId: entry.keyId });
    return principal;
  };
  return {
    async verify(key) {
      const digest = createHash('sha256').update(key).digest('hex');
      const known = passed.get(digest);
      if (known) return known;
      let pending = checking.get(digest);
      if (!pending) {
        pending = check(key, digest).finally(() => checking.delete(digest));
        checking.set(digest, pending);
      }
      return pending;
    },
    known(key) {
      return passed.get(createHash('sha256').update(key).digest('hex')) ?? null;
    },
    learn({ digest, user, keyId }) {
      const entry = byId.get(keyId);
      if (entry && entry.user === user && /^[0-9a-f]{64}$/.test(digest)) passed.set(digest, { user, keyId });
    },
  };
}
