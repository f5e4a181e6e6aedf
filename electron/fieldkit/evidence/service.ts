import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcError } from '../../../shared/rpc/errors';
import type { Cache } from '../../cache';
import { buildBundle } from './build';
import type { SigningKey } from './signing-key';
import { verifyBundle } from './verify';

export interface EvidenceDeps {
  cache: Cache;
  signingKey: SigningKey;
  dataDir: string;
  app: { name: string; version: string };
  clock: () => Date;
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
    async create(queryId: number) {
      if (!deps.cache.get(queryId)) throw new RpcError('NOT_FOUND', `No cached query with id ${queryId}`);
      const signer = await deps.signingKey.signer();
      const now = deps.clock();
      const { bytes, manifest } = buildBundle({ cache: deps.cache, queryId, app: deps.app, now, signer });
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
