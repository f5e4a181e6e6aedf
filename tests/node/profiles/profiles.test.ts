import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConnectionInfo } from '../../../shared/rpc/methods/app';
import type { Profile, ProfileList } from '../../../shared/rpc/methods/profiles';
import { startTestApp } from '../keys/harness';
import { fakeKey, requireTestKeyring } from '../keys/keyring';

requireTestKeyring();

const remoteInput = { label: 'Field office', baseUrl: 'https://compute.example.org/', searchBaseUrl: 'https://search.example.org' };

describe('connection profiles', () => {
  it('starts with the Local profile active', async () => {
    const app = await startTestApp();
    const list = await app.value<ProfileList>('profiles.list');
    expect(list.activeProfileId).toBe('local');
    // Local points at the bundled service, which the app started on loopback.
    expect(list.profiles).toEqual([
      {
        id: 'local',
        label: 'Local (bundled)',
        kind: 'local',
        baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        searchBaseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        active: true,
      },
    ]);
    expect(await app.value('connection.active')).toMatchObject({ profileId: 'local', kind: 'local' });
  });

  it('creates, edits, selects and deletes remote profiles, persisting them across restarts', async () => {
    const app = await startTestApp();
    const created = await app.value<Profile>('profiles.save', remoteInput);
    expect(created).toMatchObject({ ...remoteInput, kind: 'remote', active: false });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await app.value<Profile>('profiles.save', { ...remoteInput, label: 'Second' });

    const edited = await app.value<Profile>('profiles.save', { ...remoteInput, id: created.id, label: 'HQ' });
    expect(edited).toMatchObject({ id: created.id, label: 'HQ' });

    const conn = await app.value<ConnectionInfo>('profiles.select', { id: created.id });
    expect(conn).toEqual({
      profileId: created.id,
      label: 'HQ',
      kind: 'remote',
      baseUrl: remoteInput.baseUrl,
      searchBaseUrl: remoteInput.searchBaseUrl,
    });
    expect(await app.value('connection.active')).toEqual(conn);
    expect(app.events).toContainEqual({ event: 'connection.changed', payload: conn });

    // Editing the active profile tells listeners too.
    await app.value('profiles.save', { ...remoteInput, id: created.id, label: 'HQ 2' });
    expect(app.events.at(-1)).toMatchObject({ event: 'connection.changed', payload: { label: 'HQ 2' } });

    // A restart reads the same profiles and active selection from the data folder.
    const again = await startTestApp({ dataDir: app.dataDir, service: app.service });
    const list = await again.value<ProfileList>('profiles.list');
    expect(list.activeProfileId).toBe(created.id);
    expect(list.profiles.map((p) => [p.id, p.label, p.active])).toEqual([
      ['local', 'Local (bundled)', false],
      [created.id, 'HQ 2', true],
      [second.id, 'Second', false],
    ]);

    // Deleting the active profile falls back to Local and says so.
    const after = await again.value<ProfileList>('profiles.delete', { id: created.id });
    expect(after.activeProfileId).toBe('local');
    expect(after.profiles.map((p) => p.id)).toEqual(['local', second.id]);
    expect(again.events.at(-1)).toMatchObject({ event: 'connection.changed', payload: { profileId: 'local' } });
    const third = await startTestApp({ dataDir: app.dataDir, service: app.service });
    expect((await third.value<ProfileList>('profiles.list')).profiles.map((p) => p.id)).toEqual(['local', second.id]);
  });

  it('writes the settings file atomically and with only non-secret fields', async () => {
    const app = await startTestApp();
    const p = await app.value<Profile>('profiles.save', remoteInput);
    await app.value('keys.set', { profileId: p.id, kind: 'bearer', key: fakeKey('file') });
    const file = join(app.dataDir, 'profiles.json');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toEqual({
      version: 1,
      activeProfileId: 'local',
      remotes: [{ id: p.id, label: remoteInput.label, baseUrl: remoteInput.baseUrl, searchBaseUrl: remoteInput.searchBaseUrl }],
    });
    // No temp files are left beside it.
    expect(readdirSync(app.dataDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps an unreadable settings file aside and starts with defaults', async () => {
    const app = await startTestApp();
    writeFileSync(join(app.dataDir, 'profiles.json'), '{ not json');
    const again = await startTestApp({ dataDir: app.dataDir });
    expect((await again.value<ProfileList>('profiles.list')).profiles.map((p) => p.id)).toEqual(['local']);
    const aside = readdirSync(app.dataDir).filter((n) => n.startsWith('profiles.json.unreadable-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(app.dataDir, aside[0] ?? ''), 'utf8')).toBe('{ not json');
  });

  it('deleting a profile deletes its keys from the keychain', async () => {
    const app = await startTestApp();
    const p = await app.value<Profile>('profiles.save', remoteInput);
    await app.value('keys.set', { profileId: p.id, kind: 'bearer', key: fakeKey('gone-b') });
    await app.value('keys.set', { profileId: p.id, kind: 'search', key: fakeKey('gone-s') });
    await app.value('profiles.delete', { id: p.id });
    const keytar = (await import('keytar')).default;
    expect(await keytar.getPassword(app.service, `${p.id}:bearer`)).toBeNull();
    expect(await keytar.getPassword(app.service, `${p.id}:search`)).toBeNull();
    expect(await app.call('keys.status', { profileId: p.id })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('validates input and protects the Local profile', async () => {
    const app = await startTestApp();
    const bad = [
      { ...remoteInput, label: '  ' },
      { ...remoteInput, baseUrl: 'ftp://example.org' },
      { ...remoteInput, baseUrl: 'https://user:pw@example.org' },
      { ...remoteInput, searchBaseUrl: 'not a url' },
      { ...remoteInput, extra: 1 },
    ];
    for (const input of bad)
      expect(await app.call('profiles.save', input)).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(await app.call('profiles.save', { ...remoteInput, id: 'local' })).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT' },
    });
    expect(await app.call('profiles.save', { ...remoteInput, id: 'missing' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await app.call('profiles.delete', { id: 'local' })).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(await app.call('profiles.select', { id: 'missing' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(existsSync(join(app.dataDir, 'profiles.json'))).toBe(false);
  });
});
