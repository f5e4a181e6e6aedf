import type { SecretEntry, SecretStore } from './secret-store';

/** In-memory secrets for tests of other units; never used by the app itself. */
export function createMemorySecretStore(clock: () => Date = () => new Date()): SecretStore {
  const items = new Map<string, { secret: string; setAt: string }>();
  return {
    async get(account) {
      return items.get(account)?.secret ?? null;
    },
    async set(account, secret) {
      const entry: SecretEntry = { account, setAt: clock().toISOString() };
      items.set(account, { secret, setAt: entry.setAt as string });
      return entry;
    },
    async delete(account) {
      return items.delete(account);
    },
    async list() {
      return [...items].map(([account, v]) => ({ account, setAt: v.setAt }));
    },
  };
}
