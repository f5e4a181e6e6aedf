import keytar from 'keytar';
import { keychainError, type SecretEntry, type SecretStore } from './secret-store';

/** The part of keytar the store uses; tests substitute a keychain that never answers. */
export type KeytarApi = Pick<typeof keytar, 'getPassword' | 'setPassword' | 'deletePassword' | 'findCredentials'>;

export interface KeytarStoreOptions {
  /** Keychain service name, one per app ("Fieldlens"). */
  service: string;
  /** A keychain call that takes longer fails with KEYCHAIN (default 3000 ms). */
  timeoutMs?: number;
  clock?: () => Date;
  keytar?: KeytarApi;
}

// Write times sit in one extra entry of the same service, so the store needs no other file.
const META_ACCOUNT = '.fieldlens-meta';

/**
 * SecretStore over the OS keychain (libsecret on Linux, Keychain on macOS, Credential Manager
 * on Windows). Calls are serialised (they share the metadata entry) and bounded by a timeout:
 * libsecret can wait a long time for a Secret Service that never comes.
 */
export function createKeytarStore(opts: KeytarStoreOptions): SecretStore {
  const kt = opts.keytar ?? keytar;
  const timeoutMs = opts.timeoutMs ?? 3000;
  const clock = opts.clock ?? (() => new Date());
  const service = opts.service;
  let queue: Promise<unknown> = Promise.resolve();
  // A native call that timed out still holds a worker thread; do not pile more onto it.
  let stuck = false;

  function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (stuck) return Promise.reject(keychainError('an earlier keychain request has not finished'));
    let timer: NodeJS.Timeout | undefined;
    let pending: Promise<T>;
    try {
      pending = fn();
    } catch (e) {
      return Promise.reject(keychainError(`${what} failed (${(e as Error).message})`));
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stuck = true;
        void pending.then(
          () => (stuck = false),
          () => (stuck = false),
        );
        reject(keychainError(`no answer from the Secret Service within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    return Promise.race([
      pending.catch((e: unknown) => {
        throw keychainError(`${what} failed (${(e as Error)?.message ?? String(e)})`);
      }),
      timeout,
    ]).finally(() => clearTimeout(timer));
  }

  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  async function readMeta(): Promise<Record<string, string>> {
    const raw = await call('reading key metadata', () => kt.getPassword(service, META_ACCOUNT));
    if (!raw) return {};
    try {
      const parsed: unknown = JSON.parse(raw);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }
  const writeMeta = (meta: Record<string, string>) =>
    call('writing key metadata', () => kt.setPassword(service, META_ACCOUNT, JSON.stringify(meta)));

  return {
    get: (account) => serial(() => call('reading a key', () => kt.getPassword(service, account))),
    set: (account, secret) =>
      serial(async () => {
        await call('storing a key', () => kt.setPassword(service, account, secret));
        const setAt = clock().toISOString();
        const meta = await readMeta();
        meta[account] = setAt;
        await writeMeta(meta);
        return { account, setAt };
      }),
    delete: (account) =>
      serial(async () => {
        const deleted = await call('deleting a key', () => kt.deletePassword(service, account));
        const meta = await readMeta();
        if (account in meta) {
          delete meta[account];
          await writeMeta(meta);
        }
        return deleted;
      }),
    list: () =>
      serial(async () => {
        const found = await call('listing keys', () => kt.findCredentials(service));
        const meta = await readMeta();
        return found
          .filter((c) => c.account !== META_ACCOUNT)
          .map((c): SecretEntry => ({ account: c.account, setAt: meta[c.account] ?? null }));
      }),
  };
}
