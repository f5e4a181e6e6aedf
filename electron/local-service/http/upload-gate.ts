import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './problem';

/**
 * Upload bytes across requests in flight. A multipart request takes its declared length (the
 * most a request may send when it declares none) before its body is read and gives it back when
 * its response is done; what does not fit is answered 503 with Retry-After, unread.
 */
export interface UploadBudget {
  take(bytes: number): boolean;
  give(bytes: number): void;
  /** Bytes taken now. */
  inUse(): number;
}

export function createUploadBudget(maxBytes: number): UploadBudget {
  let used = 0;
  return {
    // One request alone always fits, however large its declared length under the request limit.
    take: (bytes) => (used === 0 || used + bytes <= maxBytes ? ((used += bytes), true) : false),
    give: (bytes) => void (used = Math.max(0, used - bytes)),
    inUse: () => used,
  };
}

export interface UploadGateOptions {
  budget: UploadBudget;
  /** The largest body a multipart request may declare (its files, fields and part headers). */
  maxRequestBytes: number;
  /** Seconds a request refused for the budget is told to wait. */
  retryAfterS: number;
}

const MIB = 1024 * 1024;

/** multipart/form-data with its boundary parameter (busboy cannot read a body without one). */
const BOUNDARY = /;\s*boundary\s*=\s*(?:"[^"]+"|[^\s;]+)/i;

/**
 * An onRequest hook for routes that take files: refuses, before a byte of the body is read, a
 * multipart request without a boundary (400), one declaring more than the request limit (413),
 * and one the budget cannot take now (503). Refusals close the connection (host.ts), so the
 * body left unsent is never read.
 */
export function uploadGate(opts: UploadGateOptions) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const type = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\b/i.test(type)) return;
    const refuse = (status: number, title: string, detail: string, code: string) => sendProblem(reply, status, title, detail, undefined, { code });
    if (!BOUNDARY.test(type)) return refuse(400, 'Bad Request', 'multipart/form-data needs a boundary parameter in Content-Type.', 'no_boundary');
    const length = Number(req.headers['content-length'] ?? NaN);
    const declared = Number.isFinite(length) ? length : null;
    if (declared !== null && declared > opts.maxRequestBytes)
      return refuse(413, 'Payload Too Large', `The request declares ${(declared / MIB).toFixed(1)} MiB; at most ${Math.floor(opts.maxRequestBytes / MIB)} MiB per request.`, 'request_too_large');
    const bytes = declared ?? opts.maxRequestBytes;
    if (!opts.budget.take(bytes)) {
      reply.header('retry-after', String(opts.retryAfterS));
      return refuse(503, 'Service Unavailable', `The service is reading other uploads; try again in ${opts.retryAfterS} s.`, 'uploads_busy');
    }
    let given = false;
    const give = () => {
      if (given) return;
      given = true;
      opts.budget.give(bytes);
    };
    reply.raw.once('finish', give);
    reply.raw.once('close', give);
  };
}

/**
 * The folder where this process writes uploads as they arrive: `tmp/uploads/<pid>` in the data
 * folder (processes of --workers share the data folder). When the service starts, it empties its
 * own and removes those of processes no longer running (files of a run that was killed).
 */
export function uploadTempDir(dataDir: string, pid = process.pid): string {
  const root = join(dataDir, 'tmp', 'uploads');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(root))
    if (name === String(pid) || !/^\d+$/.test(name) || !running(Number(name))) rmSync(join(root, name), { recursive: true, force: true });
  const dir = join(root, String(pid));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
