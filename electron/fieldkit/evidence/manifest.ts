import type { FacesReport } from '../privacy';

/** What a bundle's manifest.json holds; the signature in manifest.sig covers its exact bytes. */
export const BUNDLE_FORMAT = 'fieldlens-evidence/1';
export const MANIFEST = 'manifest.json';
export const SIGNATURE = 'manifest.sig';

export interface ManifestFile {
  path: string;
  role: 'request' | 'response' | 'media' | 'app';
  size: number;
  sha256: string;
}

/** Whether faces in the bundle's images were hidden before they left the laptop (the cache keeps the originals). */
export type ManifestPrivacy = FacesReport;

export interface Manifest {
  format: typeof BUNDLE_FORMAT;
  createdAt: string;
  app: { name: string; version: string };
  query: { id: number; kind: string; profileId: string; queryText: string; startedAt: string; finishedAt: string };
  signer: { algorithm: 'Ed25519'; publicKey: string; fingerprint: string };
  files: ManifestFile[];
  privacy?: ManifestPrivacy;
}
