import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One request as it reached the proxy. */
export interface ProxiedRequest {
  n: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the proxy does with one request; the default is to forward it untouched. */
export interface Fault {
  /** Rewrites the request before it is forwarded (body bytes and headers). */
  request?: (r: ProxiedRequest) => { body?: Buffer; headers?: Record<string, string> };
  /** Answers without forwarding. */
  answer?: { status: number; headers?: Record<string, string>; body: string };
  /** Closes the connection once the request has arrived, before any answer. */
  dropBeforeHeaders?: boolean;
  /** Holds the upstream answer back this long. */
  delayMs?: number;
  /** Sends the status line and headers (with the full length), then closes the connection. */
  dropAfterHeaders?: boolean;
  /** Sends the headers and this share (0..1) of the body, then closes the connection. */
  dropAfterBodyShare?: number;
  /** Replaces the upstream body (the content length follows). */
  body?: (upstream: Buffer) => Buffer | string;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function forwardHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

/**
 * A small HTTP proxy in front of one host of the real service that injects faults per request:
 * delays, dropped connections, corrupted bodies, canned statuses and rewritten requests. The
 * client under test sees it as the service. Written on node:http because the faults sit at the
 * socket level, below what an HTTP framework exposes.
 */
export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  /** Requests that were passed on to the service. */
  forwarded = 0;
  plan: ((r: ProxiedRequest) => Fault | undefined) | null = null;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  port = 0;

  constructor(private readonly target: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: ProxiedRequest = {
          n: this.requests.length + 1,
          method: req.method ?? 'GET',
          path: (req.url ?? '/').split('?')[0]!,
          headers: req.headers,
          body: Buffer.concat(chunks),
        };
        this.requests.push(r);
        this.handle(r, req.url ?? '/', res);
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
    this.server = null;
  }

  private later(ms: number, fn: () => void) {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private handle(r: ProxiedRequest, url: string, res: ServerResponse) {
    const fault = this.plan?.(r) ?? {};
    res.on('error', () => undefined);
    if (fault.dropBeforeHeaders) return void res.socket?.destroy();
    if (fault.answer) {
      res.writeHead(fault.answer.status, fault.answer.headers ?? {});
      return void res.end(fault.answer.body);
    }
    const rewritten = fault.request?.(r) ?? {};
    const body = rewritten.body ?? r.body;
    const headers = { ...forwardHeaders(r.headers), ...rewritten.headers, 'content-length': String(body.length) };
    this.forwarded++;
    const up = httpRequest(this.target + url, { method: r.method, headers }, (upRes) => {
      const chunks: Buffer[] = [];
      upRes.on('data', (c: Buffer) => chunks.push(c));
      upRes.on('end', () => {
        const upstream = Buffer.concat(chunks);
        const out = fault.body ? Buffer.from(fault.body(upstream)) : upstream;
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(upRes.statusCode ?? 502, { ...forwardHeaders(upRes.headers), 'content-length': String(out.length) });
          if (fault.dropAfterHeaders) {
            res.flushHeaders();
            return this.later(20, () => res.socket?.destroy());
          }
          if (fault.dropAfterBodyShare !== undefined) {
            res.write(out.subarray(0, Math.floor(out.length * fault.dropAfterBodyShare)));
            return this.later(20, () => res.socket?.destroy());
          }
          res.end(out);
        };
        if (fault.delayMs) this.later(fault.delayMs, send);
        else send();
      });
    });
    up.on('error', () => res.socket?.destroy());
    up.end(body);
  }
}
