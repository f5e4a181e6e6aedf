import pg from 'pg';
import { LeastConnections } from '../least-connections';
import { safeUrl } from './database';

/** The environment variable listing replica URLs (comma or space separated; same as `--replica URL`). */
export const REPLICA_URLS_ENV = 'FIELDLENS_REPLICA_URLS';

/** A WAL position (`pg_lsn`) as a number, to compare. */
export type Lsn = bigint;

/** `16/B374D848` as a number; null for SQL NULL (a server not in recovery has no replay position). */
export function parseLsn(text: string | null | undefined): Lsn | null {
  if (!text) return null;
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

export interface ReplicaOptions {
  primary: pg.Pool;
  /** The primary's URL, named (password blanked) in the health list. */
  primaryUrl?: string;
  replicaUrls: readonly string[];
  /** A replica whose replay is further behind than this is taken out of rotation (5 s by default). */
  maxLagMs?: number;
  /** How often every database is probed (position, role, lag); 500 ms by default. */
  probeMs?: number;
  /** How long a read waits for a replica to replay a write it must see, before it goes to the primary (200 ms by default). */
  waitMs?: number;
  /** Connections per replica pool (the primary's default, 16). */
  max?: number;
  onError?: (e: unknown) => void;
  /** A replica taken out of rotation or put back (for the log). */
  onChange?: (name: string, inRotation: boolean, reason: string) => void;
}

export interface ReadOptions {
  /** The read must see this write: a replica serves it only once it has replayed that far. */
  after?: Lsn | null;
  /** An answer from a replica that may be lag rather than truth (a row not found): asked again of the primary. */
  missing?: (r: pg.QueryResult) => boolean;
}

/** A connection lent for a read in several statements (a cursor). */
export interface ReadLease {
  client: pg.PoolClient;
  onReplica: boolean;
  /** Gives it back; `failed` (the error of its statements) takes a replica whose connection broke out of rotation. */
  release(failed?: unknown): void;
}

export interface DatabaseHealth {
  database: string;
  role: 'primary' | 'replica';
  /** ok; for a replica also lagging, down, or promoted (no longer in recovery: not read from). */
  state: 'ok' | 'error' | 'lagging' | 'down' | 'promoted';
  in_rotation: boolean;
  /** How far its replay is behind the primary, in ms (null while unknown). */
  lag_ms: number | null;
  outstanding: number;
  reads: number;
  error?: string;
}

/**
 * Where the team service reads and writes: writes (and reads that must not lag, such as the
 * layer list) on the primary; reads that may go elsewhere (layer features, saved sets, imagery)
 * on the streaming replica with the fewest outstanding requests that has replayed what the read
 * must see, else on the primary. A replica that fails a read is taken out of rotation and the
 * read is answered by the primary, so a replica stopping fails no request.
 */
export interface DatabaseRouter {
  readonly primary: pg.Pool;
  readonly replicated: boolean;
  /**
   * The primary's WAL position now: called after a write has committed, it is at or past that
   * write. Null without replicas (nothing to wait for).
   */
  mark(): Promise<Lsn | null>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], opts?: ReadOptions): Promise<pg.QueryResult<R>>;
  connect(opts?: ReadOptions): Promise<ReadLease>;
  health(): DatabaseHealth[];
  /** Probes every database once now (tests; the probe also runs on its own every probeMs). */
  probe(): Promise<void>;
  close(): Promise<void>;
}

interface Replica {
  name: string;
  pool: pg.Pool;
  state: DatabaseHealth['state'];
  /** Highest replay position seen. */
  replay: Lsn | null;
  lagMs: number | null;
  reads: number;
  outstanding: number;
  error?: string;
}

/** SQLSTATE classes of a broken connection or server (08 connection, 57 operator intervention: shutdown, crash). */
const isConnectionFault = (e: unknown) => {
  const code = (e as { code?: string }).code;
  return !code || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57');
};
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/**
 * The replicas' read pools and their probe. Lag is measured against the primary's own
 * positions, sampled at each probe: a replica is as far behind as the oldest sampled position
 * it has not replayed (0 once it has replayed the latest), so no clock of another machine and
 * no idle primary makes a caught-up replica look late.
 */
export function createDatabaseRouter(o: ReplicaOptions): DatabaseRouter {
  const maxLagMs = o.maxLagMs ?? 5000;
  const probeMs = o.probeMs ?? 500;
  const waitMs = o.waitMs ?? 200;
  const rotation = new LeastConnections<Replica>();
  const replicas: Replica[] = o.replicaUrls.map((url) => {
    const pool = new pg.Pool({ connectionString: url, max: o.max ?? 16, application_name: 'fieldlens-service', connectionTimeoutMillis: 3000 });
    pool.on('error', (e) => o.onError?.(e));
    return { name: safeUrl(url), pool, state: 'down', replay: null, lagMs: null, reads: 0, outstanding: 0 };
  });
  const primary = { state: 'ok' as 'ok' | 'error', error: undefined as string | undefined, reads: 0, outstanding: 0 };
  /** The primary's positions at recent probes, oldest first. */
  const samples: { at: number; lsn: Lsn }[] = [];
  let closed = false;

  const setState = (r: Replica, state: Replica['state'], reason: string) => {
    const was = rotation.has(r);
    r.state = state;
    const now = state === 'ok';
    if (now && !was) rotation.add(r);
    if (!now && was) rotation.remove(r);
    if (now !== was) o.onChange?.(r.name, now, reason);
  };

  const lagOf = (replay: Lsn, now: number): number => {
    const latest = samples.at(-1);
    if (!latest || replay >= latest.lsn) return 0;
    const first = samples.find((s) => s.lsn > replay)!;
    return now - first.at;
  };

  const probeReplica = async (r: Replica, now: number) => {
    try {
      const row = (
        await Promise.race([
          r.pool.query<{ standby: boolean; lsn: string | null }>('SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn'),
          sleep(Math.max(probeMs, 1000) * 2).then(() => Promise.reject(new Error('the probe timed out'))),
        ])
      ).rows[0]!;
      r.error = undefined;
      if (!row.standby) {
        // Promoted (pg_ctl promote): a server of its own now, which this primary's writes never reach.
        r.lagMs = null;
        return setState(r, 'promoted', 'no longer in recovery');
      }
      const lsn = parseLsn(row.lsn);
      if (lsn !== null && (r.replay === null || lsn > r.replay)) r.replay = lsn;
      r.lagMs = r.replay === null ? null : lagOf(r.replay, now);
      if (r.lagMs === null || r.lagMs > maxLagMs) setState(r, 'lagging', `replay ${r.lagMs ?? '?'} ms behind`);
      else setState(r, 'ok', 'replaying');
    } catch (e) {
      r.error = message(e);
      r.lagMs = null;
      setState(r, 'down', r.error);
    }
  };

  let probing: Promise<void> | null = null;
  const probe = () =>
    (probing ??= (async () => {
      const now = Date.now();
      try {
        const lsn = parseLsn((await o.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn)!;
        primary.state = 'ok';
        primary.error = undefined;
        if (!samples.length || lsn > samples.at(-1)!.lsn) samples.push({ at: now, lsn });
        // Kept a little past the bound: a replica behind all of them is past it either way.
        while (samples.length > 1 && samples[1]!.at < now - maxLagMs * 2) samples.shift();
      } catch (e) {
        primary.state = 'error';
        primary.error = message(e);
      }
      await Promise.all(replicas.map((r) => probeReplica(r, now)));
    })().finally(() => (probing = null)));

  // Replay positions of the replicas in rotation, asked now: shared by the reads waiting meanwhile.
  let refreshing: Promise<void> | null = null;
  const refresh = () =>
    (refreshing ??= Promise.all(
      replicas
        .filter((r) => rotation.has(r))
        .map(async (r) => {
          try {
            const lsn = parseLsn((await r.pool.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn')).rows[0]!.lsn);
            if (lsn !== null && (r.replay === null || lsn > r.replay)) r.replay = lsn;
          } catch (e) {
            fault(r, e);
          }
        }),
    ).then(() => {}).finally(() => (refreshing = null)));

  const fault = (r: Replica, e: unknown) => {
    if (!isConnectionFault(e)) return;
    r.error = message(e);
    setState(r, 'down', r.error);
  };

  /** The replica for a read that must see `after`, counted as serving it; null: the primary. */
  const pick = async (after: Lsn | null | undefined): Promise<Replica | null> => {
    if (!replicas.length) return null;
    const fits = (r: Replica) => after === null || after === undefined || (r.replay !== null && r.replay >= after);
    let r = rotation.pick(fits);
    const deadline = Date.now() + waitMs;
    while (!r && after !== null && after !== undefined && rotation.counts().length && Date.now() < deadline) {
      await refresh();
      r = rotation.pick(fits);
      if (!r) await sleep(Math.min(5, Math.max(0, deadline - Date.now())));
    }
    if (r) r.outstanding++;
    return r ?? null;
  };
  const done = (r: Replica) => {
    r.outstanding--;
    rotation.closed(r);
  };

  const onPrimary = async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    primary.outstanding++;
    try {
      const out = await o.primary.query<R>(text, values);
      primary.reads++;
      return out;
    } finally {
      primary.outstanding--;
    }
  };

  const timer = setInterval(() => void probe(), probeMs);
  timer.unref();
  void probe();

  return {
    primary: o.primary,
    replicated: replicas.length > 0,

    async mark() {
      if (!replicas.length) return null;
      return parseLsn((await o.primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn);
    },

    async query<R extends pg.QueryResultRow>(text: string, values?: unknown[], opts: ReadOptions = {}) {
      const r = await pick(opts.after);
      if (!r) return onPrimary<R>(text, values);
      let out: pg.QueryResult<R>;
      try {
        out = await r.pool.query<R>(text, values);
      } catch (e) {
        // Whatever failed on the replica (it stopped, a conflict with replay, a table it has not
        // replayed yet) is asked of the primary, which answers or fails the same way.
        fault(r, e);
        return onPrimary<R>(text, values);
      } finally {
        done(r);
      }
      if (opts.missing?.(out)) return onPrimary<R>(text, values);
      r.reads++;
      return out;
    },

    async connect(opts = {}) {
      const r = await pick(opts.after);
      if (r) {
        try {
          const client = await r.pool.connect();
          r.reads++;
          return {
            client,
            onReplica: true,
            release(failed) {
              if (failed !== undefined) fault(r, failed);
              client.release(failed !== undefined && isConnectionFault(failed) ? (failed as Error) : undefined);
              done(r);
            },
          };
        } catch (e) {
          fault(r, e);
          done(r);
        }
      }
      const client = await o.primary.connect();
      primary.reads++;
      return { client, onReplica: false, release: (failed) => client.release(failed !== undefined && isConnectionFault(failed) ? (failed as Error) : undefined) };
    },

    health() {
      return [
        {
          database: o.primaryUrl ? safeUrl(o.primaryUrl) : 'primary',
          role: 'primary' as const,
          state: primary.state,
          in_rotation: primary.state === 'ok',
          lag_ms: 0,
          outstanding: primary.outstanding,
          reads: primary.reads,
          ...(primary.error ? { error: primary.error } : {}),
        },
        ...replicas.map((r) => ({
          database: r.name,
          role: 'replica' as const,
          state: r.state,
          in_rotation: rotation.has(r),
          lag_ms: r.lagMs,
          outstanding: r.outstanding,
          reads: r.reads,
          ...(r.error ? { error: r.error } : {}),
        })),
      ];
    },

    probe,

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await probing?.catch(() => {});
      await Promise.all(replicas.map((r) => r.pool.end().catch(() => {})));
    },
  };
}
