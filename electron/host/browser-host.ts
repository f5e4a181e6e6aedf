import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import { err } from '../../shared/rpc/errors';
import { WS_MAX_FRAME_BYTES } from '../../shared/rpc/limits';
import { isWsRequest, type WsEvent, type WsReply } from '../../shared/rpc/ws-protocol';
import type { Logger } from '../ground/logger';
import type { EventBus } from '../rpc/events';
import type { Router } from '../rpc/router';
import { formatOfFile } from '../../shared/formats';

export interface BrowserHostOptions {
  router: Router;
  bus: EventBus;
  logger: Logger;
  /** Built renderer folder (out/renderer); none serves only the RPC socket. */
  rendererDir?: string;
  /** 0 or absent picks a free port. */
  port?: number;
  /** Per-run secret; generated when absent. */
  token?: string;
  /** Finished export files offered as downloads at /exports/:jobId (a .qgz's GeoPackage at /exports/:jobId/data). */
  downloads?: { download(jobId: string, part?: 'file' | 'data'): { path: string; fileName: string } | undefined };
  /** Finished area packs offered as downloads at /packs/:jobId. */
  packDownloads?: { download(jobId: string): { path: string; fileName: string } | undefined };
}

/** The type a finished export is sent as, from the formats table; text as UTF-8. */
function downloadType(path: string): string {
  const f = formatOfFile(path);
  const type = f?.written ? f.mime[0]! : 'application/octet-stream';
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;
}

export interface BrowserHost {
  url: string;
  /** The URL to open once: it carries the token, which then moves to a cookie. */
  launchUrl: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const COOKIE = 'fieldlens_token';

/** Shown instead of the app when the address has no token or an old one; no script, no request. */
const REOPEN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fieldlens: open the address with its key</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#1d2733;background:#fff}
code{background:#f4f6f8;padding:0 .3em;border-radius:3px}h1{font-size:1.3em;color:#174c87}</style></head>
<body><h1>This address needs the key of the running app host</h1>
<p>The Fieldlens app host makes a new key each time it starts, so a page opened before a restart
cannot reconnect with its old one.</p>
<p>Open the address the host printed when it started: it looks like
<code>http://127.0.0.1:PORT/?token=…</code> and is shown in the terminal where
<code>npm run serve</code> or <code>npm start</code> runs. If the host is not running, start it
again with one of those commands.</p>
<p>Pages already open in this browser reconnect by themselves once the new address has been opened.</p>
</body></html>`;
const LOOPBACK = '127.0.0.1';

function sameSecret(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The browser host: the same router as the Electron shell, over HTTP + WebSocket on loopback.
 * Every request needs the per-run token (query string once, then an HttpOnly cookie) and
 * must name this host in Host and, when sent, Origin; anything else is refused.
 */
export async function startBrowserHost(opts: BrowserHostOptions): Promise<BrowserHost> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  let port = 0;
  const allowedHosts = () => [`${LOOPBACK}:${port}`, `localhost:${port}`];
  const allowedOrigins = () => allowedHosts().map((h) => `http://${h}`);

  await app.register(fastifyCookie);
  // A frame past the limit closes its socket (1009) before it is buffered whole; others go on.
  await app.register(fastifyWebsocket, { options: { maxPayload: WS_MAX_FRAME_BYTES } });

  app.addHook('onRequest', async (req: FastifyRequest, reply) => {
    const host = req.headers.host;
    if (!host || !allowedHosts().includes(host)) return reply.code(403).send({ error: 'Host not allowed' });
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().includes(origin))
      return reply.code(403).send({ error: 'Origin not allowed' });
    const queryToken = (req.query as Record<string, string | undefined>)['token'];
    if (sameSecret(queryToken, token)) {
      reply.setCookie(COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/' });
      // Move the token out of the address bar and history once the cookie holds it.
      if (req.method === 'GET' && !req.headers.upgrade) {
        const clean = new URL(req.url, `http://${host}`);
        clean.searchParams.delete('token');
        return reply.redirect(clean.pathname + clean.search, 302);
      }
      return;
    }
    if (sameSecret(req.cookies[COOKIE], token)) return;
    // A person reloading after a restart reads a page, not JSON.
    if (req.method === 'GET' && (req.headers.accept ?? '').includes('text/html'))
      return reply.code(401).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(REOPEN_PAGE);
    return reply.code(401).send({ error: 'Missing or wrong token: open the URL printed at start' });
  });

  app.addHook('onSend', async (_req, reply) => {
    // frame-ancestors only works as a header; the page's own CSP is in its <meta>.
    reply.header('Content-Security-Policy', "frame-ancestors 'none'");
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
  });

  app.register(async (scope) => {
    scope.get('/rpc', { websocket: true }, (socket) => {
      const unsubscribe = opts.bus.subscribe((event, payload) => {
        try {
          socket.send(JSON.stringify({ event, payload } satisfies WsEvent));
        } catch (e) {
          opts.logger.error(`Could not send the event ${event}`, e);
        }
      });
      // Nothing a frame holds may end the process: every failure below becomes an error reply or a log line.
      socket.on('message', (raw: Buffer) => void answer(raw).catch((e) => opts.logger.error('RPC frame handling failed', e)));
      const answer = async (raw: Buffer) => {
        let req: unknown;
        try {
          req = JSON.parse(raw.toString('utf8'));
        } catch {
          opts.logger.warn('Dropped a malformed RPC frame');
          return;
        }
        // A frame with no id cannot be answered (and `null` would throw below, out of reach of any catch).
        if (!isWsRequest(req)) {
          opts.logger.warn('Dropped an RPC frame that is not a request');
          return;
        }
        const { id } = req;
        let frame: string;
        try {
          const result = await opts.router.dispatch(req.method, req.input, { transport: 'ws' });
          frame = JSON.stringify({ id, result } satisfies WsReply);
        } catch (e) {
          opts.logger.error(`RPC ${typeof req.method === 'string' ? req.method : '(no method)'} could not be answered`, e);
          const result = err('INTERNAL', `The answer could not be sent: ${e instanceof Error ? e.message : 'unknown error'}`);
          frame = JSON.stringify({ id, result } satisfies WsReply);
        }
        socket.send(frame);
      };
      socket.on('close', unsubscribe);
    });
  });

  // The page asks this when its socket is refused (a refusal has no status): 401 from the hook
  // above means the host restarted with a new token.
  app.get('/session', async (_req, reply) => reply.code(204).header('cache-control', 'no-store').send());

  const serveFile = (file: { path: string; fileName: string }, reply: FastifyReply) =>
    reply
      .header('content-type', downloadType(file.path))
      .header('content-length', statSync(file.path).size)
      .header('content-disposition', attachment(file.fileName))
      .header('cache-control', 'no-store')
      .send(createReadStream(file.path));
  const downloads = opts.downloads;
  if (downloads)
    app.get<{ Params: { jobId: string } }>('/exports/:jobId', async (req, reply) => {
      const file = downloads.download(req.params.jobId);
      if (!file) return reply.code(404).send({ error: 'No finished export with this id' });
      return serveFile(file, reply);
    });
  if (downloads)
    app.get<{ Params: { jobId: string } }>('/exports/:jobId/data', async (req, reply) => {
      const file = downloads.download(req.params.jobId, 'data');
      if (!file) return reply.code(404).send({ error: 'No finished QGIS project with this id' });
      return serveFile(file, reply);
    });
  const packDownloads = opts.packDownloads;
  if (packDownloads)
    app.get<{ Params: { jobId: string } }>('/packs/:jobId', async (req, reply) => {
      const file = packDownloads.download(req.params.jobId);
      if (!file) return reply.code(404).send({ error: 'No finished area pack with this id' });
      return serveFile(file, reply);
    });

  if (opts.rendererDir) await app.register(fastifyStatic, { root: opts.rendererDir, index: 'index.html' });

  await app.listen({ host: LOOPBACK, port: opts.port ?? 0 });
  const addr = app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  const url = `http://${LOOPBACK}:${port}/`;
  return {
    url,
    launchUrl: `${url}?token=${token}`,
    port,
    token,
    close: () => app.close(),
  };
}
