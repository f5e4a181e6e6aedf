import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from '../../ground/logger';
import { sendProblem } from './problem';

export interface HostOptions {
  logger: Logger;
  /** Which header carries the key on this host. */
  auth: 'bearer' | 'x-api-key';
  key: () => string;
  bodyLimit: number;
}

function sameKey(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Fastify error codes the service answers with a client status rather than 500. */
const TOO_LARGE = new Set([
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_REQ_FILE_TOO_LARGE',
  'FST_FILES_LIMIT',
  'FST_FIELDS_LIMIT',
  'FST_PARTS_LIMIT',
]);

/**
 * One Fastify host of the service: key check on every route unless `config.auth === false`,
 * and every error (including Fastify's own) answered as problem+json.
 */
export function createHost(opts: HostOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: opts.bodyLimit,
    return503OnClosing: true,
    forceCloseConnections: true,
  });

  // Bodies are JSON (or multipart where registered): plain text gets 415 instead of a string body.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.auth === false) return;
    let given: string | undefined;
    if (opts.auth === 'bearer') {
      const h = req.headers.authorization;
      const m = typeof h === 'string' ? /^Bearer\s+(.+)$/i.exec(h.trim()) : null;
      given = m?.[1];
    } else {
      const h = req.headers['x-api-key'];
      given = typeof h === 'string' ? h.trim() : undefined;
    }
    if (!given || !sameKey(given, opts.key())) {
      reply.header(
        'www-authenticate',
        opts.auth === 'bearer' ? 'Bearer realm="fieldlens-local"' : 'x-api-key realm="fieldlens-local"',
      );
      return sendProblem(
        reply,
        401,
        'Unauthorized',
        given ? 'The API key is not valid.' : opts.auth === 'bearer' ? 'Send Authorization: Bearer <key>.' : 'Send x-api-key: <key>.',
      );
    }
  });

  app.setNotFoundHandler((req, reply) => sendProblem(reply, 404, 'Not Found', `No route ${req.method} ${req.url.split('?')[0]}`));

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const code = err.code ?? '';
    if (TOO_LARGE.has(code) || err.statusCode === 413)
      return sendProblem(reply, 413, 'Payload Too Large', err.message);
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || err.statusCode === 415)
      return sendProblem(reply, 415, 'Unsupported Media Type', err.message);
    if (err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return sendProblem(reply, 400, 'Bad Request', `The body is not valid JSON: ${err.message}`);
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendProblem(reply, status, httpTitle(status), err.message);
    opts.logger.error(`local service: ${req.method} ${req.url.split('?')[0]} failed`, err);
    return sendProblem(reply, 500, 'Internal Server Error', 'The request could not be completed.');
  });
  return app;
}

function httpTitle(status: number): string {
  return (
    { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 429: 'Too Many Requests' } as Record<
      number,
      string
    >
  )[status] ?? 'Request Error';
}
