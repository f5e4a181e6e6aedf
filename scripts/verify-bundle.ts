import { readFileSync } from 'node:fs';
import { verifyBundle } from '../electron/fieldkit/evidence/verify';

// npm run verify -- bundle.zip [--key FINGERPRINT]: checks an evidence bundle's hashes and
// signature and says what matches and what was altered. Exit 0 only when everything matches.
const args = process.argv.slice(2);
const keyAt = args.indexOf('--key');
const trusted = keyAt >= 0 ? args[keyAt + 1] : undefined;
const files = args.filter((a, i) => a !== '--key' && (keyAt < 0 || i !== keyAt + 1));
if (files.length !== 1) {
  console.error('usage: npm run verify -- bundle.zip [--key FINGERPRINT]');
  process.exit(2);
}
let bytes: Buffer;
try {
  bytes = readFileSync(files[0]!);
} catch (e) {
  console.error(`Cannot read ${files[0]}: ${(e as Error).message}`);
  process.exit(2);
}
const report = verifyBundle(bytes, trusted);
if (report.query) console.log(`Bundle of query #${report.query.id} (${report.query.kind}) "${report.query.queryText}", run ${report.query.startedAt}`);
if (report.app) console.log(`Made by ${report.app.name} ${report.app.version}`);
for (const f of report.files) console.log(`  ${f.status.toUpperCase().padEnd(8)} ${f.path}`);
for (const line of report.lines) console.log(line);
process.exit(report.ok ? 0 : 1);
