import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Cache } from '../../../electron/cache';
import { createEvidenceService, type EvidenceService } from '../../../electron/fieldkit/evidence/service';
import { createSigningKey, SIGNING_ACCOUNT } from '../../../electron/fieldkit/evidence/signing-key';
import { verifyBundle } from '../../../electron/fieldkit/evidence/verify';
import { createMemorySecretStore } from '../../../electron/keys/memory-store';
import type { SecretStore } from '../../../electron/keys/secret-store';
import { bootTestApp, value } from '../../support/app';
import { streamResponse } from '../cache/fixtures';

let dir: string;
let cache: Cache;
let store: SecretStore;
let evidence: EvidenceService;
let queryId: number;
let raw: string;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
// Two of the three observation images were viewed (cached); the third never was.
const viewed = [
  { url: 'https://img.example/obs-0.jpg', bytes: Uint8Array.from([0xff, 0xd8, 0xff, 1, 2, 3, 0xff, 0xd9]) },
  { url: 'https://img.example/obs-2.jpg', bytes: Uint8Array.from([0xff, 0xd8, 0xff, 9, 8, 7, 6, 0xff, 0xd9]) },
];

function service(s: SecretStore = store) {
  return createEvidenceService({
    cache,
    signingKey: createSigningKey(s),
    dataDir: dir,
    app: { name: 'Fieldlens', version: '9.8.7' },
    clock: () => new Date('2026-05-01T12:00:00Z'),
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fl-evidence-'));
  cache = Cache.open(join(dir, 'cache.db'));
  const fx = streamResponse(3, 5);
  raw = fx.raw;
  // A request written by another tool with a credential field in its body: it must not travel.
  const request = { query: 'crosswalks', year: '2024', api_key: 'sk-should-not-leave', nested: { token: 't0k' } };
  queryId = cache.storeStream({ profileId: 'local', request, startedAt: 1_714_557_600_000, finishedAt: 1_714_557_600_250 }, fx.body, Buffer.from(raw));
  for (const v of viewed) cache.putMedia(v.url, 'image/jpeg', v.bytes, 1_714_557_700_000);
  store = createMemorySecretStore();
  evidence = service();
});
afterEach(() => {
  cache.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('making an evidence bundle', () => {
  it('holds the request without keys, the response bytes, the viewed media, the app version and a signed manifest of hashes', async () => {
    const made = await evidence.create(queryId);
    const zip = readFileSync(made.path);
    expect(made.sha256).toBe(sha(zip));
    const entries = unzipSync(zip);
    expect(Object.keys(entries).sort()).toEqual(['app.json', 'manifest.json', 'manifest.sig', 'media/001.jpg', 'media/002.jpg', 'request.json', 'response.raw']);

    expect(JSON.parse(strFromU8(entries['request.json']!))).toEqual({ query: 'crosswalks', year: '2024', nested: {} });
    expect(strFromU8(zip)).not.toContain('sk-should-not-leave');
    expect(Buffer.from(entries['response.raw']!).equals(Buffer.from(raw))).toBe(true);
    expect([entries['media/001.jpg'], entries['media/002.jpg']].map((b) => Buffer.from(b!).toString('hex')).sort()).toEqual(
      viewed.map((v) => Buffer.from(v.bytes).toString('hex')).sort(),
    );
    const app = JSON.parse(strFromU8(entries['app.json']!));
    expect(app.app).toEqual({ name: 'Fieldlens', version: '9.8.7' });
    expect(app.query.startedAt).toBe(new Date(1_714_557_600_000).toISOString());
    expect(app.removedFromRequest.sort()).toEqual(['api_key', 'nested.token']);
    expect(app.media.map((m: { url: string }) => m.url).sort()).toEqual(viewed.map((v) => v.url).sort());

    // Hashes and signature checked here with node:crypto alone, not with the app's checker.
    const manifestBytes = entries['manifest.json']!;
    const manifest = JSON.parse(strFromU8(manifestBytes));
    for (const f of manifest.files) expect(f.sha256, f.path).toBe(sha(entries[f.path]!));
    const key = createPublicKey({ key: Buffer.from(manifest.signer.publicKey, 'base64'), format: 'der', type: 'spki' });
    expect(key.asymmetricKeyType).toBe('ed25519');
    expect(verify(null, manifestBytes, key, Buffer.from(strFromU8(entries['manifest.sig']!).trim(), 'base64'))).toBe(true);
  });

  it('makes the signing key once, keeps it in the keychain store, and signs every later bundle with it', async () => {
    expect(await store.get(SIGNING_ACCOUNT)).toBeNull();
    const first = await evidence.create(queryId);
    const pem = await store.get(SIGNING_ACCOUNT);
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const again = await service().create(queryId); // a restart: a new service over the same keychain
    expect(again.fingerprint).toBe(first.fingerprint);
    expect(await store.get(SIGNING_ACCOUNT)).toBe(pem);
    const elsewhere = await service(createMemorySecretStore()).create(queryId);
    expect(elsewhere.fingerprint).not.toBe(first.fingerprint);
    const report = await evidence.verify({ path: elsewhere.path });
    expect(report.signature).toBe('valid');
    expect(report.signer).toEqual({ fingerprint: elsewhere.fingerprint, thisInstallation: false });
  });

  it('answers NOT_FOUND for a query that is not cached', async () => {
    await expect(evidence.create(queryId + 99)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('checking a bundle', () => {
  let entries: Record<string, Uint8Array>;
  let fingerprint: string;
  beforeEach(async () => {
    const made = await evidence.create(queryId);
    fingerprint = made.fingerprint;
    entries = unzipSync(readFileSync(made.path));
  });
  const flipByte = (b: Uint8Array, at = Math.floor(b.byteLength / 2)) => {
    const c = Uint8Array.from(b);
    c[at] = c[at]! ^ 0x01;
    return c;
  };

  it('says everything matches for an untouched bundle', () => {
    const r = verifyBundle(zipSync(entries), fingerprint);
    expect(r.ok).toBe(true);
    expect(r.signature).toBe('valid');
    expect(r.signer?.thisInstallation).toBe(true);
    expect(r.files.map((f) => f.status)).toEqual(Array(5).fill('match'));
    expect(r.lines.at(-1)).toBe('Everything matches: the bundle is as it was made.');
  });

  for (const part of ['request.json', 'response.raw', 'media/001.jpg', 'media/002.jpg', 'app.json'])
    it(`catches one byte altered in ${part}, and names only that part`, () => {
      const r = verifyBundle(zipSync({ ...entries, [part]: flipByte(entries[part]!) }), fingerprint);
      expect(r.ok).toBe(false);
      expect(r.signature).toBe('valid');
      expect(r.files.filter((f) => f.status !== 'match')).toEqual([expect.objectContaining({ path: part, status: 'altered' })]);
      expect(r.lines).toContain(`ALTERED: ${part} differs from the bytes that were signed.`);
    });

  it('catches one byte altered in the manifest (a hash rewritten to fit an altered file)', () => {
    const text = strFromU8(entries['manifest.json']!);
    const manifest = JSON.parse(text);
    const target = manifest.files.find((f: { path: string }) => f.path === 'response.raw').sha256 as string;
    const forged = target.slice(0, -1) + (target.endsWith('0') ? '1' : '0');
    const r = verifyBundle(zipSync({ ...entries, 'manifest.json': strToU8(text.replace(target, forged)) }), fingerprint);
    expect(r.ok).toBe(false);
    expect(r.signature).toBe('invalid');
    expect(r.lines).toContain('The signature does NOT match the manifest: the manifest or the signature was altered.');
  });

  it('catches one byte altered in the signature, and a missing signature', () => {
    const sig = strFromU8(entries['manifest.sig']!).trim();
    const i = 10;
    const swapped = sig.slice(0, i) + (sig[i] === 'A' ? 'B' : 'A') + sig.slice(i + 1);
    expect(verifyBundle(zipSync({ ...entries, 'manifest.sig': strToU8(swapped) }), fingerprint)).toMatchObject({ ok: false, signature: 'invalid' });
    const { ['manifest.sig']: _gone, ...unsigned } = entries;
    void _gone;
    expect(verifyBundle(zipSync(unsigned), fingerprint)).toMatchObject({ ok: false, signature: 'missing' });
  });

  it('catches a file removed and a file added, and says when the ZIP itself is unreadable', () => {
    const { ['media/002.jpg']: _removed, ...fewer } = entries;
    void _removed;
    const r1 = verifyBundle(zipSync(fewer), fingerprint);
    expect(r1.files.find((f) => f.path === 'media/002.jpg')?.status).toBe('missing');
    const r2 = verifyBundle(zipSync({ ...entries, 'media/003.jpg': strToU8('planted') }), fingerprint);
    expect(r2).toMatchObject({ ok: false, signature: 'valid' });
    expect(r2.files.find((f) => f.path === 'media/003.jpg')?.status).toBe('unlisted');
    const r3 = verifyBundle(strToU8('not a zip at all'));
    expect(r3).toMatchObject({ ok: false, readable: false });
  });

  it('npm run verify exits 0 for an untouched bundle and 1 naming what was altered', () => {
    const good = join(dir, 'good.zip');
    const bad = join(dir, 'bad.zip');
    writeFileSync(good, zipSync(entries));
    writeFileSync(bad, zipSync({ ...entries, 'response.raw': flipByte(entries['response.raw']!) }));
    const run = (file: string) => {
      try {
        return { code: 0, out: execFileSync(process.execPath, ['--import', 'tsx', 'scripts/verify-bundle.ts', file], { encoding: 'utf8' }) };
      } catch (e) {
        const x = e as { status: number; stdout: string };
        return { code: x.status, out: x.stdout };
      }
    };
    const ok = run(good);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('5 of 5 files match');
    const altered = run(bad);
    expect(altered.code).toBe(1);
    expect(altered.out).toContain('ALTERED: response.raw differs from the bytes that were signed.');
  });
});

describe('evidence over RPC', () => {
  it('creates a bundle of a cached entry and checks it by path and by content', async () => {
    cache.close();
    const app = await bootTestApp(dir, { startLocalService: false, secretStore: store });
    try {
      const made = value(await app.rpc.call('evidence.create', { queryId }));
      expect(made.files.map((f) => f.path)).toContain('response.raw');
      const key = value(await app.rpc.call('evidence.key', {}));
      expect(key.fingerprint).toBe(made.fingerprint);
      const byPath = value(await app.rpc.call('evidence.verify', { path: made.path }));
      expect(byPath).toMatchObject({ ok: true, signer: { thisInstallation: true } });
      const bytes = unzipSync(readFileSync(made.path));
      bytes['request.json'] = flip(bytes['request.json']!);
      const byContent = value(await app.rpc.call('evidence.verify', { dataBase64: Buffer.from(zipSync(bytes)).toString('base64') }));
      expect(byContent.ok).toBe(false);
      expect(byContent.files.find((f) => f.path === 'request.json')?.status).toBe('altered');
      const both = await app.rpc.call('evidence.verify', {});
      expect(both.ok || both.error.code).toBe('VALIDATION');
    } finally {
      await app.services.close();
      cache = Cache.open(join(dir, 'cache.db'));
    }
  });
});

function flip(b: Uint8Array): Uint8Array<ArrayBuffer> {
  const c = Uint8Array.from(b);
  c[0] = c[0]! ^ 0x20;
  return c;
}
