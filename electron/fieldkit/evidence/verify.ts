import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import type { VerifyReport } from '../../../shared/rpc/methods/evidence';
import { MANIFEST, SIGNATURE, type Manifest } from './manifest';
import { checkSignature } from './signing-key';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Checks a bundle: every listed file against its SHA-256, files added that the manifest does not
 * list, and the Ed25519 signature over the manifest. `trusted` (this installation's key
 * fingerprint) says whether the signer is this app or some other key.
 */
export function verifyBundle(bytes: Uint8Array, trusted?: string): VerifyReport {
  const report: VerifyReport = {
    ok: false, readable: false, manifest: 'missing', signature: 'missing', signer: null, files: [], query: null, app: null, lines: [],
  };
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (e) {
    report.lines.push(`Not a readable ZIP file (${(e as Error).message}): nothing could be checked.`);
    return report;
  }
  report.readable = true;
  const manifestBytes = entries[MANIFEST];
  if (!manifestBytes) {
    report.lines.push('No manifest.json: this is not a Fieldlens evidence bundle, or its manifest was removed.');
    return report;
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(manifestBytes)) as Manifest;
    if (!Array.isArray(manifest.files) || !manifest.signer?.publicKey) throw new Error('missing fields');
  } catch {
    report.manifest = 'unreadable';
    report.lines.push('The manifest is damaged (not the JSON a bundle carries): nothing can be trusted.');
    return report;
  }
  report.manifest = 'ok';
  report.query = { id: manifest.query?.id ?? 0, kind: String(manifest.query?.kind ?? ''), queryText: String(manifest.query?.queryText ?? ''), startedAt: String(manifest.query?.startedAt ?? '') };
  report.app = { name: String(manifest.app?.name ?? ''), version: String(manifest.app?.version ?? '') };
  report.signer = { fingerprint: String(manifest.signer.fingerprint), thisInstallation: trusted === undefined ? null : trusted === manifest.signer.fingerprint };

  const sig = entries[SIGNATURE];
  if (!sig) report.signature = 'missing';
  else report.signature = checkSignature(manifestBytes, new TextDecoder().decode(sig).trim(), manifest.signer.publicKey) ? 'valid' : 'invalid';

  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.path);
    const got = entries[f.path];
    const status = !got ? 'missing' : got.byteLength === f.size && sha256(got) === f.sha256 ? 'match' : 'altered';
    report.files.push({ path: f.path, role: f.role ?? null, status });
  }
  for (const path of Object.keys(entries))
    if (!listed.has(path) && path !== MANIFEST && path !== SIGNATURE && !path.endsWith('/'))
      report.files.push({ path, role: null, status: 'unlisted' });

  const bad = report.files.filter((f) => f.status !== 'match');
  report.ok = report.signature === 'valid' && bad.length === 0;
  const signatureLine = {
    valid: `The signature over the manifest is valid (key ${report.signer.fingerprint}${report.signer.thisInstallation === true ? ', this installation' : report.signer.thisInstallation === false ? ', not this installation\'s key' : ''}).`,
    invalid: 'The signature does NOT match the manifest: the manifest or the signature was altered.',
    missing: 'The bundle carries no signature (manifest.sig is missing).',
  }[report.signature];
  report.lines.push(signatureLine);
  const matching = report.files.filter((f) => f.status === 'match').length;
  report.lines.push(`${matching} of ${manifest.files.length} files match their SHA-256 in the manifest.`);
  for (const f of bad)
    report.lines.push(
      f.status === 'altered' ? `ALTERED: ${f.path} differs from the bytes that were signed.`
      : f.status === 'missing' ? `MISSING: ${f.path} is listed in the manifest but not in the bundle.`
      : `ADDED: ${f.path} is in the bundle but not in the signed manifest.`,
    );
  report.lines.push(report.ok ? 'Everything matches: the bundle is as it was made.' : 'The bundle is NOT as it was made.');
  return report;
}
