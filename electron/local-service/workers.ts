import cluster, { type Worker } from 'node:cluster';

/** What a worker tells the primary once both of its hosts listen. */
export interface ListeningMessage {
  type: 'listening';
  urls: { baseUrl: string; searchBaseUrl: string };
}

const SHUTDOWN = { type: 'shutdown' } as const;

/** Young-generation semi-space of a worker, in MB (V8's default tops out at 16 on 64-bit). */
export const WORKER_SEMI_SPACE_MB = 64;

/**
 * A worker's Node options: the primary's, plus two for the collector unless they were given.
 * A worker allocates tens of MB a second in short-lived request objects; at the default size it
 * runs about 9 scavenges a second under load, each a pause for every request in flight on it:
 * four times the room means a quarter as many, for the same survivors each. And the collector
 * works on the worker's own thread: with one worker per core, its parallel helpers only wait
 * for cores the other workers and the database hold, which stretched pauses to 20-50 ms. (32
 * users on the 10M layer, 2 cores: about a tenth less CPU per request and a tenth lower p99.)
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
  /** Once every worker listens (they share the ports): the URLs, announced once. */
  listening: (urls: ListeningMessage['urls']) => void;
  log: (line: string) => void;
}

/**
 * The primary of a team service run as several processes (node:cluster): it forks `count`
 * workers, each the whole service on the same ports (the kernel hands each connection to one),
 * replaces a worker that dies, and on SIGTERM/SIGINT asks every worker to drain and waits for
 * them. Workers keep nothing between requests that PostgreSQL does not hold, so any of them can
 * answer any request, a `search_id` continuation included.
 */
export function superviseWorkers(opts: SuperviseOptions): Promise<void> {
  cluster.setupPrimary({ execArgv: workerArgs(process.execArgv) });
  let stopping = false;
  let announced = false;
  const ready = new Set<Worker>();
  const fork = () => {
    const w = cluster.fork();
    w.on('message', (m: ListeningMessage | ShareMessage) => {
      if (isShare(m)) {
        for (const other of Object.values(cluster.workers ?? {})) if (other && other !== w && other.isConnected()) other.send(m);
        return;
      }
      if (m?.type !== 'listening') return;
      ready.add(w);
      if (!announced && ready.size === opts.count) {
        announced = true;
        opts.listening(m.urls);
      }
    });
  };
  for (let i = 0; i < opts.count; i++) fork();
  return new Promise((done) => {
    cluster.on('exit', (w, code, signal) => {
      ready.delete(w);
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
      // A worker still starting has nothing in flight and may not listen for messages yet: it just ends.
      for (const w of Object.values(cluster.workers ?? {})) {
        if (!w) continue;
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
export function asWorker(stop: () => void): { listening(urls: ListeningMessage['urls']): void } {
  process.on('message', (m: { type?: string }) => {
    if (m?.type === SHUTDOWN.type) stop();
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {});
  // The primary is gone (killed, crashed): nothing would replace or stop this worker, so it drains and ends.
  process.on('disconnect', stop);
  return {
    listening(urls) {
      process.send?.({ type: 'listening', urls } satisfies ListeningMessage);
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
