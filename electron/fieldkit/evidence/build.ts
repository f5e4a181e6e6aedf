import { createHash } from 'node:crypto';
import { zipSync, type Zippable } from 'fflate';
import type { Cache } from '../../cache';
import { BUNDLE_FORMAT, MANIFEST, SIGNATURE, type Manifest, type ManifestFile, type ManifestPrivacy } from './manifest';
import type { Signer } from './signing-key';

export interface BuildInput {
  cache: Cache;
  queryId: number;
  app: { name: string; version: string };
  now: Date;
  signer: Signer;
  /** Bytes that replace a cached media file in the bundle (faces hidden), by URL. */
  replaced?: ReadonlyMap<string, Uint8Array>;
  privacy?: ManifestPrivacy;
}

/** The media a cached result names that were viewed (and so cached), in the order the bundle lists them. */
export function bundleMedia(cache: Cache, queryId: number) {
  const raw = cache.rawResponse(queryId);
  let body: unknown = null;
  try {
    body = raw ? JSON.parse(raw.toString('utf8')) : null;
  } catch {
    body = null; // an error body that is not JSON names no media
  }
  const out: { url: string; path: string; contentType: string; fetchedAt: number; bytes: Uint8Array }[] = [];
  for (const url of urlsIn(body)) {
    const m = cache.getMedia(url);
    if (!m) continue;
    const path = `media/${String(out.length + 1).padStart(3, '0')}.${EXT[m.contentType] ?? 'bin'}`;
    out.push({ url, path, contentType: m.contentType, fetchedAt: m.fetchedAt, bytes: m.bytes });
  }
  return out;
}

// Field names that carry credentials in any request shape; keys travel in headers, so a match
// here is a request written by hand or by another tool, and it is removed all the same.
const SECRET_FIELD = /^(authorization|api[-_]?key|x-api-key|access[-_]?token|token|secret|password|bearer|key)$/i;

/** A copy of the request without credential fields; the removed paths are listed. */
export function withoutSecrets(value: unknown, path = '', removed: string[] = []): { value: unknown; removed: string[] } {
  if (Array.isArray(value)) return { value: value.map((v, i) => withoutSecrets(v, `${path}[${i}]`, removed).value), removed };
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const at = path ? `${path}.${k}` : k;
      if (SECRET_FIELD.test(k)) removed.push(at);
      else out[k] = withoutSecrets(v, at, removed).value;
    }
    return { value: out, removed };
  }
  return { value, removed };
}

/** Every http(s) URL written anywhere in a response body (media are found by these). */
function urlsIn(body: unknown, out = new Set<string>()): Set<string> {
  if (typeof body === 'string') {
    if (/^https?:\/\//i.test(body)) out.add(body);
  } else if (Array.isArray(body)) body.forEach((v) => urlsIn(v, out));
  else if (body && typeof body === 'object') Object.values(body).forEach((v) => urlsIn(v, out));
  return out;
}

const EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif', 'video/mp4': 'mp4' };
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const text = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + '\n');

/**
 * One cached result as a signed ZIP: the request as sent (credentials removed), the response
 * bytes as received, every media file of the result that was viewed (and so cached), the app
 * version and timestamps, and a manifest of SHA-256 hashes signed with the installation's key.
 */
export function buildBundle({ cache, queryId, app, now, signer, replaced, privacy }: BuildInput): { bytes: Uint8Array; manifest: Manifest } {
  const rec = cache.get(queryId);
  if (!rec) throw new Error(`No cached query with id ${queryId}`);
  const raw = cache.rawResponse(queryId);
  const parts: { path: string; role: ManifestFile['role']; bytes: Uint8Array }[] = [];
  const request = withoutSecrets(rec.request);
  parts.push({ path: 'request.json', role: 'request', bytes: text(request.value) });
  if (raw) parts.push({ path: 'response.raw', role: 'response', bytes: raw });

  const media: { url: string; path: string; contentType: string; fetchedAt: string }[] = [];
  for (const m of bundleMedia(cache, queryId)) {
    media.push({ url: m.url, path: m.path, contentType: m.contentType, fetchedAt: new Date(m.fetchedAt).toISOString() });
    parts.push({ path: m.path, role: 'media', bytes: replaced?.get(m.url) ?? m.bytes });
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  parts.push({
    path: 'app.json',
    role: 'app',
    bytes: text({
      app,
      bundleCreatedAt: now.toISOString(),
      query: { id: rec.id, kind: rec.kind, outcome: rec.outcome, startedAt: iso(rec.startedAt), finishedAt: iso(rec.finishedAt), httpStatus: rec.httpStatus },
      removedFromRequest: request.removed,
      responseKept: raw !== null,
      media,
    }),
  });

  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    createdAt: now.toISOString(),
    app,
    query: { id: rec.id, kind: rec.kind, profileId: rec.profileId, queryText: rec.queryText, startedAt: iso(rec.startedAt), finishedAt: iso(rec.finishedAt) },
    signer: { algorithm: 'Ed25519', publicKey: signer.publicKey, fingerprint: signer.fingerprint },
    files: parts.map((p) => ({ path: p.path, role: p.role, size: p.bytes.byteLength, sha256: sha256(p.bytes) })),
    ...(privacy ? { privacy } : {}),
  };
  const manifestBytes = text(manifest);
  const zip: Zippable = {};
  // Media are already compressed; storing them keeps the bundle quick to build and to check.
  for (const p of parts) zip[p.path] = [p.bytes, { level: p.role === 'media' ? 0 : 6 }];
  zip[MANIFEST] = manifestBytes;
  zip[SIGNATURE] = new TextEncoder().encode(signer.sign(manifestBytes) + '\n');
  return { bytes: zipSync(zip, { mtime: now }), manifest };
}
