import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTransport } from '../../../electron/rpc/memory-transport';
import { createRpcClient } from '../../../shared/rpc/client';
import type { Profile } from '../../../shared/rpc/methods/profiles';
import { provideRpc } from '../../../renderer/src/api/rpc';
import { useProfilesStore } from '../../../renderer/src/stores/profiles';
import { createKeytarStore } from '../../../electron/keys/keytar-store';
import { deadAddress, startFakeService, startTestApp, type TestApp } from './harness';
import { fakeKey, filesContaining, filesUnder, KEYRING_TIMEOUT_MS, requireTestKeyring } from './keyring';

requireTestKeyring();

/**
 * Leak sweep: one session that sets keys and runs every operation that exists, including
 * failing ones, then searches every place a key could surface for every key value.
 * Add operations to `operations` as the app grows (service client, cache, exports, ...);
 * add places to `places` when something new becomes renderer-visible or lands on disk.
 */
interface Session {
  app: TestApp;
  fake: Awaited<ReturnType<typeof startFakeService>>;
  dead: string;
  remote: Profile;
  /** Every key value this session used; all of them must stay hidden. */
  keys: Set<string>;
  /** Serialised renderer-visible state (Pinia stores), captured by renderer operations. */
  rendererState: string[];
}

const s = {} as Session;

const use = (tag: string) => {
  const k = fakeKey(tag);
  s.keys.add(k);
  return k;
};

const operations: { name: string; run(): Promise<void> }[] = [
  {
    name: 'profiles: create, edit, select a remote profile',
    async run() {
      s.remote = await s.app.value<Profile>('profiles.save', {
        label: 'Sweep remote',
        baseUrl: s.fake.url,
        searchBaseUrl: s.fake.url,
      });
      await s.app.value('profiles.save', { id: s.remote.id, label: 'Sweep remote 2', baseUrl: s.fake.url, searchBaseUrl: s.fake.url });
      await s.app.value('profiles.select', { id: s.remote.id });
      await s.app.value('profiles.list');
      await s.app.value('connection.active');
    },
  },
  {
    name: 'keys: set, replace, status (both kinds)',
    async run() {
      await s.app.value('keys.set', { profileId: s.remote.id, kind: 'bearer', key: use('old-bearer') });
      await s.app.value('keys.set', { profileId: s.remote.id, kind: 'search', key: use('old-search') });
      s.fake.keys.bearer = use('bearer');
      s.fake.keys.search = use('search');
      await s.app.value('keys.set', { profileId: s.remote.id, kind: 'bearer', key: s.fake.keys.bearer });
      await s.app.value('keys.set', { profileId: s.remote.id, kind: 'search', key: s.fake.keys.search });
      await s.app.value('keys.status', { profileId: s.remote.id });
    },
  },
  {
    name: 'keys.test: accepted keys against a real HTTP server',
    async run() {
      s.fake.seen.length = 0;
      expect(await s.app.value('keys.test', { profileId: s.remote.id, kind: 'bearer' })).toMatchObject({ outcome: 'ok' });
      expect(await s.app.value('keys.test', { profileId: s.remote.id, kind: 'search' })).toMatchObject({ outcome: 'ok' });
      // The keys did travel, in the right headers: the sweep below is not vacuous.
      expect(s.fake.seen.map((r) => r.authorization ?? r.apiKey)).toEqual([`Bearer ${s.fake.keys.bearer}`, s.fake.keys.search]);
    },
  },
  {
    name: 'bundled service: keys generated on first run, tested against the running local service',
    async run() {
      const keychain = createKeytarStore({ service: s.app.service, timeoutMs: KEYRING_TIMEOUT_MS });
      for (const kind of ['bearer', 'search'] as const) {
        const key = await keychain.get(`local:${kind}`);
        expect(key, `local ${kind} key in the keychain`).toBeTruthy();
        s.keys.add(key!);
        expect(await s.app.value('keys.test', { profileId: 'local', kind })).toMatchObject({ outcome: 'ok' });
      }
      await s.app.value('keys.status', { profileId: 'local' });
    },
  },
  {
    name: 'every service operation against the bundled service, including failing ones',
    async run() {
      await s.app.value('profiles.select', { id: 'local' });
      const first = await s.app.value<{ queryId: number; response: { id: string } }>('compute.run', {
        request: { query: 'airports within 50 km of Lyon', answer: true },
      });
      await s.app.value('compute.run', {
        request: { query: 'only those in France', search_id: first.response.id, answer: false },
      });
      const csv = 'name,lat,lon\nDepot,45.76,4.84\nYard,48.85,2.35\n';
      await s.app.value('compute.run', {
        request: { query: 'which of my sites are within 20 km of an airport', answer: true },
        attachments: [{ field: 'files', name: 'sites.csv', contentType: 'text/csv', dataBase64: Buffer.from(csv).toString('base64') }],
      });
      // Failing ones: unknown continuation (404), a file the service cannot parse (400), bad input.
      expect(
        await s.app.call('compute.run', { request: { query: 'more', search_id: '00000000-0000-4000-8000-000000000000' } }),
      ).toMatchObject({ ok: false });
      expect(
        await s.app.call('compute.run', {
          request: { query: 'my sites' },
          attachments: [{ field: 'files', name: 'broken.geojson', dataBase64: Buffer.from('{"type":').toString('base64') }],
        }),
      ).toMatchObject({ ok: false });
      expect(await s.app.call('compute.run', { request: { query: 'x', limit: 5000 } })).toMatchObject({ ok: false });

      await s.app.value('stream.run', { request: { query: 'street', year: 2024 } });
      expect(await s.app.call('stream.run', { request: { query: 'street', limit: 51 } })).toMatchObject({ ok: false });
      const imagery = await s.app.value<{ queryId: number; response: { data: { image: string }[] } }>('imagery.search', {
        request: { query: 'sample', limit: 3 },
      });
      await s.app.value('imagery.search', { request: { query: 'sample', limit: 3, page: 2 } });
      const image = imagery.response.data[0]?.image;
      expect(image).toBeTruthy();
      await s.app.value('media.get', { url: image });

      const list = await s.app.value<{ items: { id: number }[] }>('history.list', { text: 'Lyon' });
      expect(list.items.length).toBeGreaterThan(0);
      await s.app.value('history.get', { id: first.queryId });
      await s.app.value('history.thread', { id: first.queryId });
      const rerun = await s.app.value<{ queryId: number }>('history.rerun', { id: first.queryId });
      await s.app.value('history.delete', { id: rerun.queryId });
      await s.app.value('cache.stats');

      // An export of the session's queries, finished, so its file joins the sweep of the data folder.
      const done = new Promise<void>((resolve) =>
        s.app.services.bus.subscribe((event, payload) => {
          if (event === 'export.progress' && (payload as { state: string }).state !== 'running') resolve();
        }),
      );
      await s.app.value('export.start', {
        selection: { queryIds: [String(first.queryId), String(imagery.queryId)] },
        format: 'gpkg',
      });
      await done;
      // The remote profile's service is a stand-in: a compute there must carry the remote's key.
      await s.app.value('profiles.select', { id: s.remote.id });
      s.fake.seen.length = 0;
      await s.app.call('compute.run', { request: { query: 'airports in Malta' } });
      expect(s.fake.seen.some((r) => r.authorization?.startsWith('Bearer '))).toBe(true);
      await s.app.value('profiles.select', { id: 'local' });
    },
  },
  {
    name: 'failing calls: unauthorized, http error, redirect, unreachable, invalid input, conflicts',
    async run() {
      const other = await s.app.value<Profile>('profiles.save', {
        label: 'Failing',
        baseUrl: `${s.fake.url}/broken`,
        searchBaseUrl: `${s.fake.url}/moved`,
      });
      await s.app.value('keys.set', { profileId: other.id, kind: 'bearer', key: use('broken-bearer') });
      await s.app.value('keys.set', { profileId: other.id, kind: 'search', key: use('moved-search') });
      expect(await s.app.value('keys.test', { profileId: other.id, kind: 'bearer' })).toMatchObject({ outcome: 'http' });
      expect(await s.app.value('keys.test', { profileId: other.id, kind: 'search' })).toMatchObject({ outcome: 'http' });

      const dead = await s.app.value<Profile>('profiles.save', { label: 'Dead', baseUrl: s.dead, searchBaseUrl: s.dead });
      await s.app.value('keys.set', { profileId: dead.id, kind: 'bearer', key: use('dead-bearer') });
      expect(await s.app.value('keys.test', { profileId: dead.id, kind: 'bearer' })).toMatchObject({
        outcome: 'unreachable',
      });

      s.fake.keys.bearer = 'not-the-stored-one';
      expect(await s.app.value('keys.test', { profileId: s.remote.id, kind: 'bearer' })).toMatchObject({
        outcome: 'unauthorized',
      });

      expect(await s.app.call('keys.set', { profileId: s.remote.id, kind: 'bearer', key: `bad key ${use('invalid')}` })).toMatchObject({ ok: false });
      expect(await s.app.call('keys.set', { profileId: 'local', kind: 'bearer', key: use('local-refused') })).toMatchObject({ ok: false });
      expect(await s.app.call('keys.set', { profileId: 'missing', kind: 'bearer', key: use('missing') })).toMatchObject({ ok: false });
      expect(await s.app.call('keys.set', { profileId: s.remote.id, kind: 'bearer', key: use('extra'), extra: true })).toMatchObject({ ok: false });
      expect(await s.app.call('profiles.delete', { id: 'local' })).toMatchObject({ ok: false });
    },
  },
  {
    name: 'logging: lines that carry headers or key values (as a failing client would log them)',
    async run() {
      // A careless line through the app's logger must still come out clean.
      const [bearer, search] = [s.fake.keys.search, [...s.keys][0] ?? ''];
      s.app.logger.error('Request failed', {
        headers: { authorization: `Bearer ${bearer}`, 'x-api-key': search },
        url: `${s.fake.url}/v1/compute`,
      });
      s.app.logger.warn(`Upstream echoed the key ${bearer} in its body`);
      s.app.logger.error('Handler failed', new Error(`bad token ${search}`));
    },
  },
  {
    name: 'renderer: the settings store drives a session over the RPC client',
    async run() {
      // Every answer the renderer receives is recorded with the others for the sweep.
      const transport = createMemoryTransport(s.app.services.router, s.app.services.bus);
      const client = createRpcClient({
        ...transport,
        async invoke(method, input) {
          const result = await transport.invoke(method, input);
          s.app.calls.push({ method, input, result });
          return result;
        },
      });
      const vue = createApp({});
      const pinia = createPinia();
      vue.use(pinia);
      provideRpc(vue, client);
      const store = vue.runWithContext(() => useProfilesStore(pinia));
      await store.load();
      expect(store.profiles.length).toBeGreaterThanOrEqual(3);
      await store.setKey(s.remote.id, 'search', use('from-ui'));
      await store.testKey(s.remote.id, 'bearer');
      await store.testKey(s.remote.id, 'search');
      await store.setKey(s.remote.id, 'bearer', `bad key ${use('ui-invalid')}`);
      expect(store.error?.code).toBe('VALIDATION');
      await store.select('local');
      await store.select(s.remote.id);
      expect(store.keyState(s.remote.id, 'search')).toMatchObject({ set: true });
      s.rendererState.push(JSON.stringify(pinia.state.value));
      await store.deleteKey(s.remote.id, 'search');
      s.rendererState.push(JSON.stringify(pinia.state.value));
    },
  },
  {
    name: 'key file: made under a passphrase, a key set, replaced, tested and read back there',
    async run() {
      // The passphrase is as secret as a key: swept for everywhere too.
      const passphrase = use('passphrase');
      expect(await s.app.value('keys.unlock', { passphrase })).toMatchObject({ backend: 'file', keyFile: true });
      await s.app.value('keys.backend');
      s.fake.keys.bearer = use('file-bearer');
      await s.app.value('keys.set', { profileId: s.remote.id, kind: 'bearer', key: use('file-old') });
      await s.app.value('keys.set', { profileId: s.remote.id, kind: 'bearer', key: s.fake.keys.bearer });
      await s.app.value('keys.status', { profileId: s.remote.id });
      expect(await s.app.value('keys.test', { profileId: s.remote.id, kind: 'bearer' })).toMatchObject({ outcome: 'ok' });
      // A wrong passphrase is refused without echoing it.
      expect((await s.app.call('keys.unlock', { passphrase: use('wrong-passphrase') })).ok).toBe(false);
      expect(readFileSync(join(s.app.dataDir, 'keys.enc'), 'utf8')).toMatch(/"kdf":"scrypt"/);
    },
  },
  {
    name: 'cleanup: delete keys and a profile',
    async run() {
      await s.app.value('keys.delete', { profileId: s.remote.id, kind: 'bearer' });
      await s.app.value('profiles.delete', { id: s.remote.id });
      await s.app.value('profiles.list');
    },
  },
];

/** Everywhere a key could surface; each must be free of every key. */
const places: { name: string; text(): string[] }[] = [
  { name: 'every RPC output (ok and error envelopes)', text: () => s.app.calls.map((c) => JSON.stringify(c.result)) },
  { name: 'every event payload', text: () => s.app.events.map((e) => JSON.stringify(e)) },
  { name: 'renderer-visible store state', text: () => s.rendererState },
  { name: 'log file', text: () => [readFileSync(s.app.logFile, 'utf8')] },
  {
    name: 'every file in the data folder (settings, SQLite, logs)',
    text: () => filesContaining(s.app.dataDir, [...s.keys]).map((f) => `key found in ${f}`),
  },
];

describe('leak sweep', () => {
  beforeAll(async () => {
    s.keys = new Set();
    s.rendererState = [];
    s.fake = await startFakeService({ bearer: '', search: '' });
    s.dead = await deadAddress();
    s.app = await startTestApp();
  });
  afterAll(() => s.fake?.close());

  for (const op of operations) it(op.name, () => op.run());

  it('the session produced something to search', () => {
    expect(s.keys.size).toBeGreaterThanOrEqual(12);
    expect(s.app.calls.length).toBeGreaterThan(30);
    expect(s.app.calls.some((c) => !c.result.ok)).toBe(true);
    expect(s.rendererState.length).toBe(2);
    expect(readFileSync(s.app.logFile, 'utf8')).toMatch(/\[redacted\]/);
    expect(filesUnder(s.app.dataDir).length).toBeGreaterThanOrEqual(2);
  });

  // Names the kind of key found (its tag), never the key itself.
  const hitsIn = (texts: string[], keys: Set<string>) =>
    texts.flatMap((t) => [...keys].filter((k) => t.includes(k)).map((k) => k.split('_')[1]));

  it('would notice a key if one were there', () => {
    const planted = fakeKey('planted');
    expect(hitsIn([`{"x":"${planted}"}`], new Set([planted]))).toEqual(['planted']);
    writeFileSync(join(s.app.dataDir, 'planted.bin'), Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(planted)]));
    expect(filesContaining(s.app.dataDir, [planted])).toHaveLength(1);
    rmSync(join(s.app.dataDir, 'planted.bin'));
  });

  for (const place of places)
    it(`finds no key in ${place.name}`, () => {
      expect(hitsIn(place.text(), s.keys)).toEqual([]);
    });
});
