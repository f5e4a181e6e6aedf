import keytar from 'keytar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { accountOf, KeyService } from '../../../electron/keys/key-service';
import { createKeytarStore, type KeytarApi } from '../../../electron/keys/keytar-store';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import type { SecretStore } from '../../../electron/keys/secret-store';
import { fakeKey, KEYRING_TIMEOUT_MS, requireTestKeyring, testService } from './keyring';

requireTestKeyring();

const service = testService();
const store = createKeytarStore({ service, timeoutMs: KEYRING_TIMEOUT_MS });

afterAll(async () => {
  for (const c of await keytar.findCredentials(service)) await keytar.deletePassword(service, c.account);
});

describe.each([
  ['keytar on gnome-keyring', () => store],
  ['in-memory', () => createMemorySecretStore()],
])('KeyService over %s', (_name, makeStore: () => SecretStore) => {
  let keys: KeyService;
  beforeAll(() => {
    keys = new KeyService(makeStore(), createMemoryLogger());
  });

  it('sets, gets, replaces and deletes per profile and key kind', async () => {
    const a = { bearer: fakeKey('a-bearer'), search: fakeKey('a-search') };
    const b = { bearer: fakeKey('b-bearer'), search: fakeKey('b-search') };
    for (const [p, ks] of [['prof-a', a], ['prof-b', b]] as const)
      for (const kind of ['bearer', 'search'] as const) {
        const st = await keys.set(p, kind, ks[kind]);
        expect(st).toMatchObject({ kind, set: true });
        expect(Date.parse(st.setAt ?? '')).not.toBeNaN();
      }
    // Each (profile, kind) is its own entry.
    expect(await keys.getKey('prof-a', 'bearer')).toBe(a.bearer);
    expect(await keys.getKey('prof-a', 'search')).toBe(a.search);
    expect(await keys.getKey('prof-b', 'bearer')).toBe(b.bearer);
    expect(await keys.getKey('prof-b', 'search')).toBe(b.search);

    const replaced = fakeKey('a-bearer-2');
    await keys.set('prof-a', 'bearer', replaced);
    expect(await keys.getKey('prof-a', 'bearer')).toBe(replaced);
    expect(await keys.getKey('prof-b', 'bearer')).toBe(b.bearer);

    expect(await keys.delete('prof-a', 'bearer')).toEqual({ kind: 'bearer', set: false, setAt: null });
    expect(await keys.getKey('prof-a', 'bearer')).toBeNull();
    expect(await keys.getKey('prof-a', 'search')).toBe(a.search);
    expect(await keys.status('prof-a')).toEqual([
      { kind: 'bearer', set: false, setAt: null },
      { kind: 'search', set: true, setAt: expect.any(String) },
    ]);

    await keys.deleteAll('prof-b');
    expect(await keys.getKey('prof-b', 'bearer')).toBeNull();
    expect(await keys.getKey('prof-b', 'search')).toBeNull();
    // Deleting what is not there is not an error.
    await expect(keys.delete('prof-b', 'search')).resolves.toMatchObject({ set: false });
  });

  it('knows every key it has seen, for log redaction', async () => {
    const k = fakeKey('redact');
    const k2 = fakeKey('redact2');
    await keys.set('prof-c', 'search', k);
    expect([...keys.secretValues()]).toContain(k);
    await keys.set('prof-c', 'search', k2);
    await keys.delete('prof-c', 'search');
    // Replaced and deleted keys stay redacted for the rest of the run.
    expect([...keys.secretValues()]).toEqual(expect.arrayContaining([k, k2]));
    // Keys stored by an earlier run are learnt at start.
    const fresh = new KeyService((keys as unknown as { store: SecretStore }).store, createMemoryLogger());
    await fresh.warm();
    expect([...fresh.secretValues()]).toContain(await keys.getKey('prof-a', 'search'));
  });

  it('generates the bundled service keys once and keeps them', async () => {
    const first = await keys.localServiceKeys('local-test');
    expect(first.bearer).toMatch(/^fl_bearer_[\w-]{40,}$/);
    expect(first.search).toMatch(/^fl_search_[\w-]{40,}$/);
    expect(first.bearer).not.toBe(first.search);
    // A fresh service (next app start) reads the same keys back from the store.
    const again = await new KeyService(
      (keys as unknown as { store: SecretStore }).store,
      createMemoryLogger(),
    ).localServiceKeys('local-test');
    expect(again).toEqual(first);
  });
});

describe('keytar store in the real keychain', () => {
  it('stores the key itself under service and profile:kind, visible to other keychain clients', async () => {
    const k = fakeKey('raw');
    await store.set(accountOf('prof-raw', 'bearer'), k);
    expect(await keytar.getPassword(service, 'prof-raw:bearer')).toBe(k);
    const listed = await store.list();
    expect(listed.find((e) => e.account === 'prof-raw:bearer')?.setAt).toEqual(expect.any(String));
    // The metadata entry is internal and not listed.
    expect(listed.every((e) => !e.account.startsWith('.'))).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(k);
  });

  it('records when a key was set, from the injected clock', async () => {
    const at = new Date('2026-03-04T05:06:07.000Z');
    const clocked = createKeytarStore({ service, clock: () => at, timeoutMs: KEYRING_TIMEOUT_MS });
    await clocked.set('prof-time:search', fakeKey('time'));
    expect((await clocked.list()).find((e) => e.account === 'prof-time:search')?.setAt).toBe(at.toISOString());
  });
});

describe('keytar store when the keychain does not answer', () => {
  // libsecret may wait for a Secret Service that never starts; the store must not wait with it.
  const never = () => new Promise<never>(() => undefined);
  const hanging: KeytarApi = {
    getPassword: never,
    setPassword: never,
    deletePassword: never,
    findCredentials: never,
  };

  it('fails with KEYCHAIN and guidance after the timeout, then fails fast', async () => {
    const s = createKeytarStore({ service: 'unused', timeoutMs: 150, keytar: hanging });
    const t0 = Date.now();
    await expect(s.set('p:bearer', fakeKey('hang'))).rejects.toMatchObject({
      code: 'KEYCHAIN',
      message: expect.stringMatching(/gnome-keyring/),
    });
    expect(Date.now() - t0).toBeLessThan(2000);
    const t1 = Date.now();
    await expect(s.get('p:bearer')).rejects.toMatchObject({ code: 'KEYCHAIN' });
    expect(Date.now() - t1).toBeLessThan(100);
  });

  it('turns keytar errors into KEYCHAIN errors', async () => {
    const failing: KeytarApi = {
      ...hanging,
      setPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
    };
    const s = createKeytarStore({ service: 'unused', keytar: failing });
    await expect(s.set('p:bearer', fakeKey('x'))).rejects.toMatchObject({
      code: 'KEYCHAIN',
      message: expect.stringContaining('Cannot autolaunch D-Bus'),
    });
  });
});
