import { randomBytes } from 'node:crypto';
import type { KeyState } from '../../shared/rpc/methods/keys';
import type { Logger } from '../core/logger';
import type { KeyKind, KeyProvider } from '../core/secrets';
import type { SecretStore } from './secret-store';

export const KEY_KINDS: readonly KeyKind[] = ['bearer', 'search'];

/** One keychain account per profile and key kind. */
export const accountOf = (profileId: string, kind: KeyKind) => `${profileId}:${kind}`;

export interface LocalServiceKeys {
  bearer: string;
  search: string;
}

/**
 * Keys per connection profile over a SecretStore. Implements the KeyProvider the service client
 * reads, keeps the set of known key values for log redaction, and owns the bundled service's keys.
 */
export class KeyService implements KeyProvider {
  private readonly known = new Map<string, string>();
  private localKeys: Promise<LocalServiceKeys> | null = null;

  constructor(
    private readonly store: SecretStore,
    private readonly logger: Logger,
  ) {}

  async getKey(profileId: string, kind: KeyKind): Promise<string | null> {
    const account = accountOf(profileId, kind);
    const value = await this.store.get(account);
    if (value) this.known.set(account, value);
    else this.known.delete(account);
    return value;
  }

  async set(profileId: string, kind: KeyKind, key: string): Promise<KeyState> {
    const account = accountOf(profileId, kind);
    // Known before the write: a failing write may be logged with the value in an error.
    this.known.set(`pending:${account}`, key);
    try {
      const entry = await this.store.set(account, key);
      this.known.set(account, key);
      this.logger.info('Key stored', { profileId, kind });
      return { kind, set: true, setAt: entry.setAt };
    } finally {
      this.known.delete(`pending:${account}`);
    }
  }

  async delete(profileId: string, kind: KeyKind): Promise<KeyState> {
    const account = accountOf(profileId, kind);
    await this.store.delete(account);
    // Keep redacting a deleted value for the rest of the run: requests in flight may still log it.
    const old = this.known.get(account);
    if (old) this.known.set(`deleted:${account}`, old);
    this.known.delete(account);
    this.logger.info('Key deleted', { profileId, kind });
    return { kind, set: false, setAt: null };
  }

  async deleteAll(profileId: string): Promise<void> {
    for (const kind of KEY_KINDS) await this.delete(profileId, kind);
  }

  async status(profileId: string): Promise<KeyState[]> {
    const entries = await this.store.list();
    return KEY_KINDS.map((kind) => {
      const e = entries.find((x) => x.account === accountOf(profileId, kind));
      return { kind, set: Boolean(e), setAt: e?.setAt ?? null };
    });
  }

  /** Reads every stored key once so redaction covers keys set in earlier runs. */
  async warm(): Promise<void> {
    for (const e of await this.store.list()) {
      const v = await this.store.get(e.account);
      if (v) this.known.set(e.account, v);
    }
  }

  /** For the logger's `secrets` option: every key value this process has seen. */
  readonly secretValues = (): Iterable<string> => this.known.values();

  /**
   * Keys of the bundled local service: generated on first use, then kept in the keychain.
   * Concurrent callers share one generation; a failure is retried on the next call.
   */
  localServiceKeys(profileId: string): Promise<LocalServiceKeys> {
    this.localKeys ??= this.loadOrCreateLocal(profileId).catch((e: unknown) => {
      this.localKeys = null;
      throw e;
    });
    return this.localKeys;
  }

  private async loadOrCreateLocal(profileId: string): Promise<LocalServiceKeys> {
    const out: Partial<LocalServiceKeys> = {};
    for (const kind of KEY_KINDS) {
      let key = await this.getKey(profileId, kind);
      if (!key) {
        key = `fl_${kind}_${randomBytes(32).toString('base64url')}`;
        await this.set(profileId, kind, key);
        this.logger.info('Generated a key for the bundled service', { kind });
      }
      out[kind] = key;
    }
    return out as LocalServiceKeys;
  }
}
