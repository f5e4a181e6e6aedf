import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcError } from '../../../shared/rpc/errors';
import type { Cache } from '../../cache';
import { buildBundle, bundleMedia } from './build';
import { createFaceHider, type FaceBlur, type HideOptions } from '../privacy';
import type { ManifestPrivacy } from './manifest';
import type { SigningKey } from './signing-key';
import { verifyBundle } from './verify';

export type { FaceBlur } from '../privacy';

export interface EvidenceDeps {
  cache: Cache;
  signingKey: SigningKey;
  dataDir: string;
  app: { name: string; version: string };
  clock: () => Date;
  /** Absent: images go as cached, and the manifest says faces were not hidden. */
  faceBlur?: FaceBlur;
}

/**
 * Faces hidden in every JPEG of the bundle, unless the caller said not to; what was done is
 * written for the manifest. The cache keeps the originals.
 */
async function hideFaces(deps: EvidenceDeps, queryId: number, wanted: HideOptions): Promise<{ replaced: Map<string, Uint8Array>; privacy: ManifestPrivacy }> {
  const replaced = new Map<string, Uint8Array>();
  const hider = createFaceHider(deps.faceBlur, wanted);
  for (const m of bundleMedia(deps.cache, queryId)) {
    const out = await hider.hide(m.path, m.contentType, m.bytes);
    if (out !== m.bytes) replaced.set(m.url, out);
  }
  return { replaced, privacy: hider.report() };
}

const evidenceDir = (dataDir: string) => join(dataDir, 'evidence');
const bundlePrefix = (queryId: number) => `evidence-${queryId}-`;

/** SHA-256 of the newest evidence bundle made for a query (names sort by time), or null when none was. */
export function latestBundleSha256(dataDir: string, queryId: number): string | null {
  let names: string[];
  try {
    names = readdirSync(evidenceDir(dataDir));
  } catch {
    return null;
  }
  const newest = names.filter((n) => n.startsWith(bundlePrefix(queryId)) && n.endsWith('.zip')).sort().at(-1);
  return newest ? createHash('sha256').update(readFileSync(join(evidenceDir(dataDir), newest))).digest('hex') : null;
}

/** Evidence bundles: made from the cache into `evidence/` of the data folder, and checked. */
export function createEvidenceService(deps: EvidenceDeps) {
  const dir = evidenceDir(deps.dataDir);
  return {
    /** Faces are hidden unless `blurFaces` is false; vehicles too with `blurVehicles`. */
    async create(queryId: number, opts: { blurFaces?: boolean; blurVehicles?: boolean } = {}) {
      if (!deps.cache.get(queryId)) throw new RpcError('NOT_FOUND', `No cached query with id ${queryId}`);
      const signer = await deps.signingKey.signer();
      const { replaced, privacy } = await hideFaces(deps, queryId, { faces: opts.blurFaces ?? true, vehicles: opts.blurVehicles ?? false });
      const now = deps.clock();
      const { bytes, manifest } = buildBundle({ cache: deps.cache, queryId, app: deps.app, now, signer, replaced, privacy });
      const name = `${bundlePrefix(queryId)}${now.toISOString().replace(/[:.]/g, '-')}.zip`;
      mkdirSync(dir, { recursive: true });
      const path = join(dir, name);
      writeFileSync(path, bytes, { mode: 0o600 });
      return {
        path,
        name,
        size: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        fingerprint: signer.fingerprint,
        files: manifest.files,
        privacy: { facesBlurred: privacy.facesBlurred, faces: privacy.faces, vehiclesBlurred: privacy.vehiclesBlurred, vehicles: privacy.vehicles, note: privacy.note },
      };
    },
    async verify(input: { path?: string | undefined; dataBase64?: string | undefined }) {
      let bytes: Uint8Array;
      if (input.path !== undefined) {
        try {
          bytes = readFileSync(input.path);
        } catch (e) {
          throw new RpcError('NOT_FOUND', `Cannot read ${input.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
      } else bytes = Buffer.from(input.dataBase64!, 'base64');
      // The installation's key is read only if it exists: checking a bundle never makes one.
      const own = await deps.signingKey.existing().catch(() => null);
      return verifyBundle(bytes, own?.fingerprint);
    },
    async key() {
      const s = await deps.signingKey.signer();
      return { fingerprint: s.fingerprint, publicKey: s.publicKey };
    },
  };
}
export type EvidenceService = ReturnType<typeof createEvidenceService>;
