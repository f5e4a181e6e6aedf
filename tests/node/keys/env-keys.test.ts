import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, createMemoryLogger } from '../../../electron/ground/logger';
import { createEnvKeys, envKeyName } from '../../../electron/keys/env-keys';
import { KeyService } from '../../../electron/keys/key-service';
import { keychainError } from '../../../electron/keys/secret-store';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import { createAppServices, type AppServices } from '../../../electron/root/app-services';
import type { KeyTestResult } from '../../../shared/rpc/methods/keys';
import type { Profile } from '../../../shared/rpc/methods/profiles';
import { startFakeService } from './harness';

/**
 * Keys given in the process environment (FIELDLENS_KEY_<CONNECTION>, FIELDLENS_SEARCH_KEY_<CONNECTION>):
 * used for that connection, shown as from the environment, never written or deleted by the app,
 * redacted from the log from the start; the bundled service's keys are never taken from there.
 * A memory store stands for the keychain: no keyring is needed.
 */
const dirs: string[] = [];
const open: AppServices[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await Promise.all(closers.splice(0).map((c) => c()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function app(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-env-keys-'));
  dirs.push(dataDir);
  const logFile = join(dataDir, 'logs', 'test.log');
  let secrets: () => Iterable<string> = () => [];
  const logger = createLogger({ file: logFile, level: 'debug', secrets: () => secrets(), echo: false });
  const services = await createAppServices({
    dataDir,
    logger,
    shell: 'test',
    version: '0.0.0-test',
    clock: () => new Date(),
    secretStore: createMemorySecretStore(),
    startLocalService: false,
    watchPhotos: false,
    env,
  });
  secrets = services.secretValues;
  open.push(services);
  const call = async (method: string, input: unknown) => JSON.parse(JSON.stringify(await services.router.dispatch(method, input)));
  const value = async <T>(method: string, input: unknown): Promise<T> => {
    const r = await call(method, input);
    if (!r.ok) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.value as T;
  };
  return { services, call, value, logger, logFile };
}

describe('the variable names', () => {
  it('are the connection label in capitals, each run of other characters one underscore', () => {
    expect(envKeyName('Field office', 'bearer')).toBe('FIELDLENS_KEY_FIELD_OFFICE');
    expect(envKeyName('Field office', 'search')).toBe('FIELDLENS_SEARCH_KEY_FIELD_OFFICE');
    expect(envKeyName('  team-2 (PostGIS) ', 'bearer')).toBe('FIELDLENS_KEY_TEAM_2_POSTGIS');
    expect(envKeyName('—', 'bearer')).toBeNull();
  });
});

describe('keys from the environment', () => {
  const bearer = 'fl-env-bearer-0123456789abcdef';
  const stored = 'fl-stored-search-0123456789abcdef';

  it('are used for their connection, shown as such, and never set or deleted by the app', async () => {
    const fake = await startFakeService({ bearer, search: stored });
    closers.push(() => fake.close());
    const a = await app({ FIELDLENS_KEY_FIELD_OFFICE: bearer, FIELDLENS_KEY_OTHER: 'fl-other-0123456789' });
    const remote = await a.value<Profile>('profiles.save', { label: 'Field office', baseUrl: `${fake.url}/`, searchBaseUrl: fake.url });

    expect(await a.value('keys.status', { profileId: remote.id })).toEqual({
      profileId: remote.id,
      keys: [
        { kind: 'bearer', set: true, setAt: null, from: 'environment', variable: 'FIELDLENS_KEY_FIELD_OFFICE' },
        { kind: 'search', set: false, setAt: null },
      ],
    });
    // The service is asked with the environment's key.
    fake.seen.length = 0;
    expect((await a.value<KeyTestResult>('keys.test', { profileId: remote.id, kind: 'bearer' })).outcome).toBe('ok');
    expect(fake.seen[0]!.authorization).toBe(`Bearer ${bearer}`);

    // Read only: changed where it is set. The refusal names the variable, never the key.
    for (const r of [
      await a.call('keys.set', { profileId: remote.id, kind: 'bearer', key: 'fl-typed-0123456789abcdef' }),
      await a.call('keys.delete', { profileId: remote.id, kind: 'bearer' }),
    ]) {
      expect(r).toMatchObject({ ok: false, error: { code: 'CONFLICT', message: expect.stringContaining('FIELDLENS_KEY_FIELD_OFFICE') } });
      expect(JSON.stringify(r)).not.toContain(bearer);
    }
    expect((await a.value<{ keys: { from?: string }[] }>('keys.status', { profileId: remote.id })).keys[0]!.from).toBe('environment');

    // The other key of the connection is kept in the store as before, and the connection can go.
    expect(await a.value('keys.set', { profileId: remote.id, kind: 'search', key: stored })).toMatchObject({ set: true });
    expect((await a.value<KeyTestResult>('keys.test', { profileId: remote.id, kind: 'search' })).outcome).toBe('ok');
    expect(await a.call('profiles.delete', { id: remote.id })).toMatchObject({ ok: true });
  });

  it('are redacted from the log from the start, for any connection', async () => {
    const a = await app({ FIELDLENS_KEY_FIELD_OFFICE: bearer, FIELDLENS_SEARCH_KEY_ELSEWHERE: 'fl-elsewhere-0123456789' });
    a.logger.info('a line with both', { bearer, other: 'fl-elsewhere-0123456789' });
    const log = readFileSync(a.logFile, 'utf8');
    expect(log).toContain('a line with both');
    expect(log).not.toContain(bearer);
    expect(log).not.toContain('fl-elsewhere-0123456789');
  });

  it('leave the bundled service\'s keys alone, and a connection whose variable is not set', async () => {
    const a = await app({ FIELDLENS_KEY_LOCAL_BUNDLED: bearer, FIELDLENS_KEY_FIELD_OFFICE: '  ' });
    const status = await a.value<{ keys: { from?: string }[] }>('keys.status', { profileId: 'local' });
    expect(status.keys.every((k) => k.from === undefined)).toBe(true);
    const remote = await a.value<Profile>('profiles.save', { label: 'Field office', baseUrl: 'http://127.0.0.1:9/', searchBaseUrl: 'http://127.0.0.1:9/search' });
    expect((await a.value<{ keys: { set: boolean; from?: string }[] }>('keys.status', { profileId: remote.id })).keys).toEqual([
      { kind: 'bearer', set: false, setAt: null },
      { kind: 'search', set: false, setAt: null },
    ]);
  });
});

describe('with no keychain', () => {
  it('still shows the key of the environment, and the stored one as not set; with none from there, the error', async () => {
    const failing = {
      get: () => Promise.reject(keychainError('no Secret Service')),
      set: () => Promise.reject(keychainError('no Secret Service')),
      delete: () => Promise.reject(keychainError('no Secret Service')),
      list: () => Promise.reject(keychainError('no Secret Service')),
    };
    const env = createEnvKeys({ FIELDLENS_KEY_FIELD_OFFICE: 'fl-env-bearer-0123456789abcdef' }, (id) => (id === 'p1' ? 'Field office' : id === 'p2' ? 'Elsewhere' : null));
    const keys = new KeyService(failing, createMemoryLogger(), env);
    expect(await keys.status('p1')).toEqual([
      { kind: 'bearer', set: true, setAt: null, from: 'environment', variable: 'FIELDLENS_KEY_FIELD_OFFICE' },
      { kind: 'search', set: false, setAt: null },
    ]);
    expect(await keys.getKey('p1', 'bearer')).toBe('fl-env-bearer-0123456789abcdef');
    await expect(keys.status('p2')).rejects.toMatchObject({ code: 'KEYCHAIN' });
  });
});
