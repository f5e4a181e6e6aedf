import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFallbackStore } from '../../../electron/keys/fallback-store';
import { createKeyFileStore } from '../../../electron/keys/file-store';
import { keychainError, type SecretStore } from '../../../electron/keys/secret-store';
import { fakeKey, tempDir } from './keyring';

/** A keychain that is not there, as on a server without a Secret Service. */
const noKeychain: SecretStore = {
  get: () => Promise.reject(keychainError('no Secret Service')),
  set: () => Promise.reject(keychainError('no Secret Service')),
  delete: () => Promise.reject(keychainError('no Secret Service')),
  list: () => Promise.reject(keychainError('no Secret Service')),
};

describe('the encrypted key file', () => {
  it('keeps keys under a passphrase: read back by a new process with it, refused with another, never in plain text', async () => {
    const path = join(tempDir(), 'keys.enc');
    const key = fakeKey('file');
    const a = createKeyFileStore({ path });
    await expect(a.get('x')).rejects.toMatchObject({ code: 'KEYCHAIN' });
    await a.unlock('first passphrase');
    await a.set('p1:bearer', key);
    expect(readFileSync(path, 'utf8')).not.toContain(key);
    expect(readFileSync(path, 'utf8')).not.toContain('first passphrase');

    const wrong = createKeyFileStore({ path });
    await expect(wrong.unlock('other passphrase')).rejects.toMatchObject({ code: 'AUTH' });
    expect(wrong.unlocked).toBe(false);
    const b = createKeyFileStore({ path });
    await b.unlock('first passphrase');
    expect(await b.get('p1:bearer')).toBe(key);
    expect((await b.list()).map((e) => e.account)).toEqual(['p1:bearer']);
    expect(await b.delete('p1:bearer')).toBe(true);
    expect(await createKeyFileStore({ path }).unlock('first passphrase').then(() => 'opened')).toBe('opened');
  });

  it('stands in for a keychain that does not answer, once opened, and says which is in use', async () => {
    const store = createFallbackStore(noKeychain, createKeyFileStore({ path: join(tempDir(), 'keys.enc') }));
    await expect(store.set('p1:bearer', fakeKey('x'))).rejects.toThrow(/passphrase/);
    expect(await store.backend()).toBe('none');
    await store.unlockFile('a passphrase');
    expect(await store.backend()).toBe('file');
    const key = fakeKey('y');
    await store.set('p1:bearer', key);
    expect(await store.get('p1:bearer')).toBe(key);
  });
});
