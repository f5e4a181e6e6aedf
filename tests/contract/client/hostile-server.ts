import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What the server does with one operation request (POST); GET /health always answers 200. */
export type Behaviour = (res: ServerResponse, later: (ms: number, fn: () => void) => void, path: string) => void;

/** One request as it arrived. */
export interface Arrival {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

/**
 * A service that misbehaves on purpose, one behaviour at a time: written on node:http because
 * the faults sit at the socket (drips, resets, lying lengths), below any framework.
 */
export class HostileServer {
  behaviour: Behaviour | null = null;
  readonly arrivals: Arrival[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Answers begun since the last settle(). */
  private readonly answering = new Set<ServerResponse>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.arrivals.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
        res.on('error', () => undefined);
        this.answering.add(res);
        if (req.method === 'GET' && req.url?.endsWith('/health')) return void res.end('ok');
        if (!this.behaviour) return void res.writeHead(500).end('no behaviour set');
        this.behaviour(
          res,
          (ms, fn) => {
            const t = setTimeout(() => {
              this.timers.delete(t);
              if (!res.destroyed) fn();
            }, ms);
            this.timers.add(t);
          },
          req.url ?? '/',
        );
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

  /**
   * Ends what the last behaviour left running (drips, held or endless answers) and waits until
   * those sockets are closed, so that the next case does not start on a pooled dead one. Sockets
   * whose answer ended stay open for the client to reuse, as a real server's would.
   */
  async settle(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const cut = [...this.answering].filter((res) => !res.writableEnded).map((res) => res.socket).filter((s): s is Socket => !!s);
    this.answering.clear();
    for (const s of cut) s.destroy();
    while (cut.some((s) => this.sockets.has(s))) await new Promise((ok) => setTimeout(ok, 2));
  }

  async stop(): Promise<void> {
    await this.settle();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }
}

// ---------------------------------------------------------------- behaviours

export const send =
  (status: number, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }): Behaviour =>
  (res) => {
    res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

/** Headers with the full length, then `share` of the body, then the socket closes (or is reset). */
export const cutAfter =
  (body: string, share: number, reset = false): Behaviour =>
  (res, later) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.write(body.slice(0, Math.floor(body.length * share)));
    later(20, () => (reset ? res.socket?.resetAndDestroy() : res.socket?.destroy()));
  };

/** One byte every `everyMs`, forever (or until the body ends). */
export const drip =
  (body: string | null, everyMs: number): Behaviour =>
  (res, later) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let at = 0;
    const step = () => {
      if (body !== null && at >= body.length) return void res.end();
      res.write(body === null ? ' ' : body[at++]!);
      later(everyMs, step);
    };
    step();
  };

/** Chunks of `chunk` bytes as fast as the socket takes them, with no end. */
export const endless =
  (chunk: string): Behaviour =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const buf = Buffer.from(chunk);
    const pump = () => {
      while (!res.destroyed && res.write(buf));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  };

/** Takes the request and never answers. */
export const silent: Behaviour = () => undefined;
