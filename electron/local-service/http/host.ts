import { randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from '../../ground/logger';
import type { Principal } from '../team/keyring';
import type { RateLimiter } from '../team/rate-limit';
import type { WrongKeys } from '../team/wrong-keys';
import { closeIfBodyLeft, DEFAULT_STALL, hasBody, stalledDetail, watchStall, type StallLimits } from './body-watch';
import { sendProblem } from './problem';

export interface HostOptions {
  logger: Logger;
  /** Which header carries the key on this host. */
  auth: 'bearer' | 'x-api-key';
  key: () => string;
  bodyLimit: number;
  /** Keys that map to users (a team service); replaces the single `key` when given. */
  authenticate?: (given: string) => Promise<Principal | null>;
  /** With `authenticate`: the principal of a key already known to pass, without checking it again (null otherwise). */
  authenticateKnown?: (given: string) => Principal | null;
  /** Wrong keys per client address: counted, logged, and past the limit answered 429. */
  wrongKeys?: WrongKeys;
  /** Per-key request limits: 429 with Retry-After past them. */
  rateLimiter?: RateLimiter;
  /** One structured log line per request (request id, route, status, time, user); never keys or bodies. */
  accessLog?: boolean;
  /** Also log request bodies (debug level only: they hold the users' questions). */
  logBodies?: boolean;
  /** Requests in flight, and whether the service is draining for shutdown (new requests get 503). */
  traffic?: Traffic;
  /** When a body that stopped arriving, or trickles, is cut with 408 (DEFAULT_STALL by default). */
  stall?: StallLimits;
}

/** Requests in flight across the hosts, so shutdown can wait for them. */
export interface Traffic {
  draining: boolean;
  inFlight: number;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
  enter(): void;
  leave(): void;
}

export function createTraffic(): Traffic {
  let waiters: (() => void)[] = [];
  const t: Traffic = {
    draining: false,
    inFlight: 0,
    idle: () => (t.inFlight === 0 ? Promise.resolve() : new Promise((ok) => waiters.push(ok))),
    enter: () => void t.inFlight++,
    leave() {
      t.inFlight--;
      if (t.inFlight === 0) {
        const w = waiters;
        waiters = [];
        w.forEach((f) => f());
      }
    },
  };
  return t;
}

/** An incoming x-request-id is kept when it is a plain token (a proxy's id); else one is made. */
const REQUEST_ID = /^[\w.:-]{1,64}$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request, once its key passed (null on routes without auth). */
    principal: Principal | null;
  }
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
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  app.decorateRequest('principal', null);
  const traffic = opts.traffic;
  const stall = opts.stall ?? DEFAULT_STALL;

  // A body that stalls is cut (multipart bodies are watched where they are read, compute-body.ts).
  app.addHook('onRequest', async (req, reply) => {
    if (!hasBody(req) || /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) return;
    const stop = watchStall(req, stall, () => {
      if (!reply.sent) sendProblem(reply, 408, 'Request Timeout', stalledDetail(stall), undefined, { code: 'body_timeout' });
    });
    reply.raw.once('close', stop);
  });
  // An answer sent before the body was read to its end closes the connection (the rest is not read).
  app.addHook('onSend', (req, reply, payload, done) => {
    closeIfBodyLeft(req, (k, v) => void reply.header(k, v));
    done(null, payload);
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (!traffic) return;
    if (traffic.draining) {
      reply.header('connection', 'close');
      return sendProblem(reply, 503, 'Service Unavailable', 'The service is shutting down; try again shortly.');
    }
    traffic.enter();
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      traffic.leave();
    };
    reply.raw.once('finish', leave);
    reply.raw.once('close', leave);
  });
  if (opts.accessLog)
    app.addHook('onResponse', async (req, reply) => {
      opts.logger.info('request', {
        request_id: req.id,
        method: req.method,
        route: req.routeOptions.url ?? req.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        user: req.principal?.user ?? null,
        // Which process answered, when several share the port (--workers).
        pid: process.pid,
      });
    });
  if (opts.logBodies) app.addHook('preHandler', async (req) => opts.logger.debug('request body', { request_id: req.id, body: req.body }));

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
    // An address past its wrong keys has a key compared with known ones only (no scrypt).
    const held = given ? (opts.wrongKeys?.held(req.ip) ?? 0) : 0;
    const single = (k: string) => (sameKey(k, opts.key()) ? { user: null, keyId: opts.auth } : null);
    const principal = !given
      ? null
      : !opts.authenticate
        ? single(given)
        : held
          ? (opts.authenticateKnown?.(given) ?? null)
          : await opts.authenticate(given);
    if (!principal && given) opts.wrongKeys?.failed(req.ip);
    if (!principal && held) {
      reply.header('retry-after', String(held));
      return sendProblem(reply, 429, 'Too Many Requests', `Too many wrong keys from this address; try again in ${held} s.`);
    }
    if (!principal) {
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
    req.principal = principal;
    const wait = opts.rateLimiter?.take(principal.keyId) ?? 0;
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return sendProblem(reply, 429, 'Too Many Requests', `Too many requests with this key; try again in ${wait} s.`);
    }
  });

  app.setNotFoundHandler((req, reply) => sendProblem(reply, 404, 'Not Found', `No route ${req.method} ${req.url.split('?')[0]}`));

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const code = err.code ?? '';
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendProblem(reply, 413, 'Payload Too Large', `The request body is larger than ${opts.bodyLimit / MIB} MiB.`, undefined, { code: 'request_too_large' });
    if (TOO_LARGE.has(code) || err.statusCode === 413)
      return sendProblem(reply, 413, 'Payload Too Large', err.message);
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || err.statusCode === 415)
      return sendProblem(reply, 415, 'Unsupported Media Type', err.message);
    if (err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return sendProblem(reply, 400, 'Bad Request', `The body is not valid JSON: ${err.message}`);
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendProblem(reply, status, httpTitle(status), err.message);
    opts.logger.error(`local service: ${req.method} ${req.url.split('?')[0]} failed (request ${req.id})`, err);
    return sendProblem(reply, 500, 'Internal Server Error', 'The request could not be completed.');
  });
  return app;
}

const MIB = 1024 * 1024;

function httpTitle(status: number): string {
  return (
    { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 429: 'Too Many Requests' } as Record<
      number,
      string
    >
  )[status] ?? 'Request Error';
}
