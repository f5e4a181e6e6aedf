import { randomBytes } from 'node:crypto';
import type { KeyKind, KeyState, LocalServiceKeys } from '../../shared/rpc/methods/keys';
import { RpcError } from '../../shared/rpc/errors';
import type { Logger } from '../ground/logger';
import type { EnvKeys } from './env-keys';
import type { SecretStore } from './secret-store';

export const KEY_KINDS: readonly KeyKind[] = ['bearer', 'search'];

/** One keychain account per profile and key kind. */
export const accountOf = (profileId: string, kind: KeyKind) => `${profileId}:${kind}`;

/**
 * Keys per connection profile over a SecretStore. Meets the client's KeyProvider (getKey), keeps the set of known key values for log redaction, and owns the bundled service's keys.
 */
export class KeyService {
  // Every key value seen in this run, replaced and deleted ones included: requests in flight
  // and errors about an old key may still be logged after it changed.
  private readonly known = new Set<string>();
  private localKeys: Promise<LocalServiceKeys> | null = null;
  // Keys held for this run only (the bundled service's, when no keychain answers): never stored.
  private readonly runOnly = new Map<string, string>();

  constructor(
    private readonly store: SecretStore,
    private readonly logger: Logger,
    /** Keys given in the process environment: they take precedence over the store, read only. */
    private readonly env: EnvKeys | null = null,
  ) {}

  /** A key of the environment, learnt for redaction when read. */
  private fromEnv(profileId: string, kind: KeyKind) {
    const e = this.env?.get(profileId, kind) ?? null;
    if (e) this.known.add(e.value);
    return e;
  }

  /** Keys of the environment are changed where they are set, not here. */
  private assertNotFromEnv(profileId: string, kind: KeyKind): void {
    const e = this.fromEnv(profileId, kind);
    if (e) throw new RpcError('CONFLICT', `This key comes from the environment (${e.variable}): change or unset the variable and restart Fieldlens`, { variable: e.variable });
  }

  async getKey(profileId: string, kind: KeyKind): Promise<string | null> {
    const account = accountOf(profileId, kind);
    const held = this.runOnly.get(account);
    if (held) return held;
    const env = this.fromEnv(profileId, kind);
    if (env) return env.value;
    const value = await this.store.get(account);
    if (value) this.known.add(value);
    return value;
  }

  async set(profileId: string, kind: KeyKind, key: string): Promise<KeyState> {
    this.assertNotFromEnv(profileId, kind);
    // Known before the write: a failing write may be logged with the value in an error.
    this.known.add(key);
    const entry = await this.store.set(accountOf(profileId, kind), key);
    this.logger.info('Key stored', { profileId, kind });
    return { kind, set: true, setAt: entry.setAt };
  }

  async delete(profileId: string, kind: KeyKind): Promise<KeyState> {
    this.assertNotFromEnv(profileId, kind);
    await this.store.delete(accountOf(profileId, kind));
    this.logger.info('Key deleted', { profileId, kind });
    return { kind, set: false, setAt: null };
  }

  /** Deletes a connection's stored keys (those of the environment stay where they are set). */
  async deleteAll(profileId: string): Promise<void> {
    for (const kind of KEY_KINDS) if (!this.fromEnv(profileId, kind)) await this.delete(profileId, kind);
  }

  async status(profileId: string): Promise<KeyState[]> {
    const env = KEY_KINDS.map((kind) => this.fromEnv(profileId, kind));
    // With every key from the environment the store is not asked; with some, a store that cannot
    // be read (no keychain, a locked key file) leaves the others unset and still shows those
    // (Settings says apart where keys are kept).
    const entries = env.every(Boolean) ? [] : await this.store.list().catch((e: unknown) => (env.some(Boolean) ? [] : Promise.reject(e)));
    return KEY_KINDS.map((kind, i) => {
      const fromEnv = env[i];
      if (fromEnv) return { kind, set: true, setAt: null, from: 'environment' as const, variable: fromEnv.variable };
      const e = entries.find((x) => x.account === accountOf(profileId, kind));
      return { kind, set: Boolean(e), setAt: e?.setAt ?? null };
    });
  }

  /** Holds keys in memory for this run only; they take precedence over the store and are never written. */
  holdForThisRun(profileId: string, keys: LocalServiceKeys): void {
    for (const kind of KEY_KINDS) {
      this.known.add(keys[kind]);
      this.runOnly.set(accountOf(profileId, kind), keys[kind]);
    }
  }

  /** Reads every stored key once so redaction covers keys set in earlier runs. */
  async warm(): Promise<void> {
    for (const v of this.env?.values() ?? []) this.known.add(v);
    for (const e of await this.store.list()) {
      const v = await this.store.get(e.account);
      if (v) this.known.add(v);
    }
  }

  /** Another value the log must never show (the key file's passphrase). */
  redact(value: string): void {
    this.known.add(value);
  }

  /** For the logger's `secrets` option: every key value this process has seen. */
  readonly secretValues = (): Iterable<string> => this.known;

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
