import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import net, { type AddressInfo, type Socket } from 'node:net';
import { LeastConnections } from './least-connections';

export type HostName = 'base' | 'search';
export interface ServiceUrls {
  baseUrl: string;
  searchBaseUrl: string;
}

/** What a worker tells the primary once it takes connections. */
interface ReadyMessage {
  type: 'listening';
}

/** A connection the primary hands to a worker, for one of the two hosts (the socket rides along). */
interface ConnectionMessage {
  type: 'connection';
  host: HostName;
}

/** A worker tells the primary that one of the connections it was handed closed. */
const CLOSED = { type: 'closed' } as const;

/** How the primary tells a worker the service's URLs (it listens before forking). */
const URLS_ENV = 'FIELDLENS_WORKER_URLS';

const SHUTDOWN = { type: 'shutdown' } as const;

/** Young-generation semi-space of a worker, in MB (V8's largest default on 64-bit, stated here so it holds). */
export const WORKER_SEMI_SPACE_MB = 16;

/**
 * A worker's Node options: the primary's, plus two for the collector unless they were given.
 * Each young-generation collection pauses every request in flight on the worker, for as long as
 * it takes to copy what is still alive, and with 16 requests in flight that is a few MB whatever
 * the space's size: a larger space means fewer pauses but each no shorter, and 64 MB gave the
 * higher p99 in 7 of 9 paired runs (32 users on the 10M layer, 2 cores). And the collector works
 * on the worker's own thread: with one worker per core, its parallel helpers only wait for cores
 * the other workers and the database hold, which stretched pauses to 20-50 ms (about a tenth
 * lower p99 without them).
 */
export function workerArgs(execArgv: readonly string[]): string[] {
  const args = [...execArgv];
  if (!args.some((a) => a.startsWith('--max-semi-space-size'))) args.push(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
  if (!args.some((a) => /^--(no-)?single-threaded-gc$/.test(a))) args.push('--single-threaded-gc');
  return args;
}

/** What one worker tells every other (through the primary): a topic and its body. */
interface ShareMessage {
  type: 'share';
  topic: string;
  body: unknown;
}

const isShare = (m: unknown): m is ShareMessage => (m as ShareMessage | null)?.type === 'share' && typeof (m as ShareMessage).topic === 'string';

export interface SuperviseOptions {
  count: number;
  /** Where the two hosts listen (port 0: any free one). */
  host: string;
  port: number;
  searchPort: number;
  /** Once every worker takes connections: the URLs, announced once. */
  listening: (urls: ServiceUrls) => void;
  log: (line: string) => void;
}

/** The URL of a listening socket, as this machine reaches it. */
function urlOf(server: net.Server): string {
  const a = server.address() as AddressInfo;
  if (a.address === '0.0.0.0' || a.address === '::') return `http://127.0.0.1:${a.port}`;
  return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
}

/**
 * The primary of a team service run as several processes (node:cluster): it listens on both
 * hosts' ports itself and hands each connection, unread, to the worker holding the fewest (each
 * worker runs the whole service), replaces a worker that dies, and on SIGTERM/SIGINT stops
 * accepting, asks every worker to drain and waits for them. Workers keep nothing between requests
 * that PostgreSQL does not hold, so any of them can answer any request, a `search_id`
 * continuation included.
 */
export async function superviseWorkers(opts: SuperviseOptions): Promise<void> {
  const hosts: Record<HostName, net.Server> = { base: net.createServer({ pauseOnConnect: true }), search: net.createServer({ pauseOnConnect: true }) };
  const balance = new LeastConnections<Worker>();
  // Connections that came before any worker took connections, handed out as soon as one does.
  const waiting: [HostName, Socket][] = [];
  let stopping = false;
  const handOff = (host: HostName, socket: Socket) => {
    const w = balance.pick();
    if (!w) return void waiting.push([host, socket]);
    w.send({ type: 'connection', host } satisfies ConnectionMessage, socket, (e: Error | null) => {
      // The worker is gone meanwhile: the client sees the connection close and tries again.
      if (e) {
        balance.closed(w);
        socket.destroy();
      }
    });
  };
  for (const name of ['base', 'search'] as const) {
    hosts[name].on('connection', (s: Socket) => handOff(name, s));
    hosts[name].listen(name === 'base' ? opts.port : opts.searchPort, opts.host);
    await once(hosts[name], 'listening');
  }
  const urls: ServiceUrls = { baseUrl: urlOf(hosts.base), searchBaseUrl: urlOf(hosts.search) };
  cluster.setupPrimary({ execArgv: workerArgs(process.execArgv) });
  let announced = false;
  const ready = new Set<Worker>();
  const fork = () => {
    const w = cluster.fork({ [URLS_ENV]: JSON.stringify(urls) });
    w.on('message', (m: ReadyMessage | ShareMessage | typeof CLOSED) => {
      if (isShare(m)) {
        for (const other of Object.values(cluster.workers ?? {})) if (other && other !== w && other.isConnected()) other.send(m);
        return;
      }
      if (m?.type === CLOSED.type) return balance.closed(w);
      if (m?.type !== 'listening' || stopping) return;
      ready.add(w);
      balance.add(w);
      for (const [host, socket] of waiting.splice(0)) handOff(host, socket);
      if (!announced && ready.size === opts.count) {
        announced = true;
        opts.listening(urls);
      }
    });
  };
  for (let i = 0; i < opts.count; i++) fork();
  return new Promise((done) => {
    cluster.on('exit', (w, code, signal) => {
      ready.delete(w);
      balance.remove(w);
      if (stopping) {
        if (!Object.keys(cluster.workers ?? {}).length) done();
        return;
      }
      opts.log(`worker ${w.process.pid} ended (${signal ?? `code ${code}`}); starting another`);
      fork();
    });
    const stop = () => {
      // A second signal ends every worker at once.
      if (stopping) {
        for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
        return;
      }
      stopping = true;
      // No new connections; those in the workers finish what they asked.
      for (const server of Object.values(hosts)) server.close();
      for (const [, socket] of waiting.splice(0)) socket.destroy();
      // A worker still starting has nothing in flight and may not listen for messages yet: it just ends.
      for (const w of Object.values(cluster.workers ?? {})) {
        if (!w) continue;
        balance.remove(w);
        if (ready.has(w)) w.send(SHUTDOWN);
        else w.process.kill('SIGTERM');
      }
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * A worker's side: `stop` runs on the primary's shutdown message, a SIGTERM sent to the worker
 * itself, or when the primary is gone. SIGINT is left to the primary: a terminal's Ctrl+C reaches every process of the group,
 * and the primary's message already says to drain.
 */
export function asWorker(stop: () => void): {
  /** The service's URLs: the primary listens on the ports. */
  urls: ServiceUrls;
  /** From now on, each connection the primary hands over goes to `accept`. */
  listening(accept: (host: HostName, socket: Socket) => void): void;
} {
  process.on('message', (m: { type?: string }) => {
    if (m?.type === SHUTDOWN.type) stop();
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {});
  // The primary is gone (killed, crashed): nothing would replace or stop this worker, so it drains and ends.
  process.on('disconnect', stop);
  return {
    urls: JSON.parse(process.env[URLS_ENV] ?? 'null') as ServiceUrls,
    listening(accept) {
      process.on('message', (m: ConnectionMessage, socket?: Socket) => {
        if (m?.type !== 'connection' || !socket) return;
        socket.once('close', () => {
          if (process.connected) process.send?.(CLOSED);
        });
        accept(m.host, socket);
      });
      process.send?.({ type: 'listening' } satisfies ReadyMessage);
    },
  };
}

/**
 * A channel between the worker processes of one service on one machine: what a worker sends on
 * `topic` reaches every other worker's `receive` (relayed by the primary). Outside a cluster
 * worker there is nobody to tell, and sending does nothing.
 */
export function shareWithWorkers<T>(topic: string, receive: (body: T) => void): (body: T) => void {
  if (!cluster.isWorker) return () => {};
  process.on('message', (m: unknown) => {
    if (isShare(m) && m.topic === topic) receive(m.body as T);
  });
  return (body) => {
    if (process.connected) process.send?.({ type: 'share', topic, body } satisfies ShareMessage);
  };
}
