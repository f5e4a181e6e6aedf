/**
 * Peak RSS of the service while 4 requests at once each send 10 files of 20 MiB of readable CSV
 * (503s retried after Retry-After), and the slowest /health meanwhile: bench:hardening's upload
 * figures alone, with service flags after `--`.
 *
 *   tsx tests/bench/upload-memory.ts [-- --upload-budget-mb 1000]
 */
import { concurrentUploads } from './limits-load';
import { spawnService } from './service-harness';

const REQUESTS = Number(process.env['REQUESTS'] ?? 4);
const PARTS = Number(process.env['PARTS'] ?? 10);
const PART_MIB = Number(process.env['PART_MIB'] ?? 20);

const svc = await spawnService({ args: process.argv.slice(2).filter((a) => a !== '--') });
try {
  process.stdout.write(JSON.stringify(await concurrentUploads(svc, REQUESTS, PARTS, PART_MIB)) + '\n');
} finally {
  await svc.stop();
}
