import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyTestResult } from '../../../shared/rpc/methods/keys';
import type { Profile } from '../../../shared/rpc/methods/profiles';
import { deadAddress, startFakeService, startTestApp, type TestApp } from './harness';
import { fakeKey, requireTestKeyring } from './keyring';

requireTestKeyring();

const good = { bearer: fakeKey('good-bearer'), search: fakeKey('good-search') };
let fake: Awaited<ReturnType<typeof startFakeService>>;
let app: TestApp;
let remote: Profile;

beforeAll(async () => {
  fake = await startFakeService(good);
  app = await startTestApp();
  remote = await app.value<Profile>('profiles.save', {
    label: 'Fake remote',
    baseUrl: `${fake.url}/`,
    searchBaseUrl: fake.url,
  });
});
afterAll(() => fake.close());

describe('keys.* over RPC', () => {
  it('keys.set is write-only: the answer and status say set/when, never the key', async () => {
    const set = await app.call('keys.set', { profileId: remote.id, kind: 'bearer', key: good.bearer });
    expect(set).toEqual({ ok: true, value: { kind: 'bearer', set: true, setAt: expect.any(String) } });
    const status = await app.value('keys.status', { profileId: remote.id });
    expect(status).toEqual({
      profileId: remote.id,
      keys: [
        { kind: 'bearer', set: true, setAt: expect.any(String) },
        { kind: 'search', set: false, setAt: null },
      ],
    });
    expect(JSON.stringify([set, status])).not.toContain(good.bearer);
  });

  it('rejects malformed keys without echoing them', async () => {
    const secretPart = fakeKey('bad');
    const r = await app.call('keys.set', { profileId: remote.id, kind: 'search', key: `has space ${secretPart}` });
    expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(JSON.stringify(r)).not.toContain(secretPart);
  });

  it('refuses to set or delete the bundled service keys, and unknown profiles', async () => {
    expect(await app.call('keys.set', { profileId: 'local', kind: 'bearer', key: fakeKey('l') })).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT' },
    });
    expect(await app.call('keys.delete', { profileId: 'local', kind: 'bearer' })).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT' },
    });
    expect(await app.call('keys.set', { profileId: 'nope', kind: 'bearer', key: fakeKey('n') })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  it('keys.test sends the Bearer key to {base_url}/v1/compute and reports ok', async () => {
    fake.seen.length = 0;
    const r = await app.value<KeyTestResult>('keys.test', { profileId: remote.id, kind: 'bearer' });
    expect(r).toMatchObject({ profileId: remote.id, kind: 'bearer', outcome: 'ok', httpStatus: 200 });
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]).toMatchObject({
      path: '/v1/compute',
      authorization: `Bearer ${good.bearer}`,
      apiKey: undefined,
      body: { query: expect.any(String), answer: false, limit: 1 },
    });
  });

  it('keys.test sends x-api-key to {search_base_url}/search; a wrong key is unauthorized', async () => {
    const wrong = fakeKey('wrong-search');
    await app.value('keys.set', { profileId: remote.id, kind: 'search', key: wrong });
    fake.seen.length = 0;
    const r = await app.value<KeyTestResult>('keys.test', { profileId: remote.id, kind: 'search' });
    expect(r).toMatchObject({ outcome: 'unauthorized', httpStatus: 403 });
    expect(fake.seen[0]).toMatchObject({ path: '/search', apiKey: wrong, authorization: undefined, body: { limit: 1 } });

    await app.value('keys.set', { profileId: remote.id, kind: 'search', key: good.search });
    expect(await app.value('keys.test', { profileId: remote.id, kind: 'search' })).toMatchObject({ outcome: 'ok' });
  });

  it('reports other statuses as http, and does not follow redirects with the key', async () => {
    const odd = await app.value<Profile>('profiles.save', {
      label: 'Odd',
      baseUrl: `${fake.url}/broken`,
      searchBaseUrl: `${fake.url}/moved`,
    });
    await app.value('keys.set', { profileId: odd.id, kind: 'bearer', key: good.bearer });
    await app.value('keys.set', { profileId: odd.id, kind: 'search', key: good.search });
    fake.seen.length = 0;
    expect(await app.value('keys.test', { profileId: odd.id, kind: 'bearer' })).toMatchObject({
      outcome: 'http',
      httpStatus: 500,
    });
    expect(await app.value('keys.test', { profileId: odd.id, kind: 'search' })).toMatchObject({
      outcome: 'http',
      httpStatus: 307,
    });
    expect(fake.seen.map((s) => s.path)).toEqual(['/broken/v1/compute', '/moved/search']);
  });

  it('reports unreachable hosts and unset keys', async () => {
    const dead = await deadAddress();
    const p = await app.value<Profile>('profiles.save', { label: 'Dead', baseUrl: dead, searchBaseUrl: dead });
    expect(await app.value('keys.test', { profileId: p.id, kind: 'bearer' })).toMatchObject({
      outcome: 'not_set',
      httpStatus: null,
    });
    await app.value('keys.set', { profileId: p.id, kind: 'bearer', key: fakeKey('dead') });
    const r = await app.value<KeyTestResult>('keys.test', { profileId: p.id, kind: 'bearer' });
    expect(r).toMatchObject({ outcome: 'unreachable', httpStatus: null });
    expect(r.message).toMatch(/ECONNREFUSED/);
  });

  it('keys.delete removes the key; the next test says not_set', async () => {
    expect(await app.value('keys.delete', { profileId: remote.id, kind: 'bearer' })).toEqual({
      kind: 'bearer',
      set: false,
      setAt: null,
    });
    expect(await app.value('keys.test', { profileId: remote.id, kind: 'bearer' })).toMatchObject({
      outcome: 'not_set',
    });
  });

  it('never puts a key in any RPC output', () => {
    const text = JSON.stringify(app.calls.map((c) => c.result));
    for (const k of [good.bearer, good.search]) expect(text).not.toContain(k);
  });
});
