import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Keychain tests run against a private gnome-keyring that scripts/with-keyring.sh starts; outside
 * it they would touch the developer's own keyring (or find none), so they refuse to run.
 */
export function requireTestKeyring(): void {
  if (process.env['FIELDLENS_TEST_KEYRING'] !== '1')
    throw new Error(
      'Keychain tests need the private test keyring: run them through scripts/with-keyring.sh, e.g.\n' +
        '  bash scripts/with-keyring.sh npx vitest run tests/node/keys tests/node/profiles',
    );
}

/** A keychain service name of its own per test file, so files never see each other's entries. */
/**
 * The keychain timeout in tests: gnome-keyring beside other jobs on two cores has taken over the
 * app's 3 s to answer. The timeout itself is tested with a keychain that never answers.
 */
export const KEYRING_TIMEOUT_MS = 20_000;

export const testService = () => `FieldlensTest-${randomUUID()}`;

export const tempDir = (prefix = 'fieldlens-test-') => mkdtempSync(join(tmpdir(), prefix));

/** A realistic key: long, random, never a substring of anything else in the app. */
export const fakeKey = (tag: string) => `sk_${tag}_${randomUUID().replaceAll('-', '')}`;

/** Every regular file under dir, recursively. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

/** Files under dir whose bytes contain any of the secrets (binary-safe, so SQLite pages count too). */
export function filesContaining(dir: string, secrets: string[]): string[] {
  return filesUnder(dir).filter((f) => {
    const buf = readFileSync(f);
    return secrets.some((s) => buf.includes(Buffer.from(s, 'utf8')));
  });
}
