import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

const SCRIPT = join(import.meta.dirname, '../../scripts/pg-test-cluster.sh');

export interface PgCluster {
  dir: string;
  port: number;
  /** A fresh database with PostGIS (cloned from the cluster's template); returns its URL. */
  createDatabase(): Promise<string>;
  /** A streaming replica of the cluster (`pg_basebackup -R`) on a port of its own; stopped with the cluster. */
  startReplica(): PgReplica;
  /** Stops the server (and its replicas) and deletes its folder. */
  stop(): void;
}

export interface PgReplica {
  port: number;
  /** Its data folder (postmaster.pid names its server process). */
  dataDir: string;
  /** The replica's URL of a database of the primary (same name). */
  url(primaryUrl: string): string;
  /** Fast shutdown, and a start again on the same port. */
  stop(): void;
  start(): void;
  /** Replay of the primary's WAL held (`pg_wal_replay_pause()`) and let go. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
}

/**
 * A throwaway cluster (scripts/pg-test-cluster.sh) for one test file or benchmark: initdb in a
 * temp folder, a free loopback port, a template database holding PostGIS. About 2 s to start.
 */
export function startPgCluster(): PgCluster {
  const [dir, port] = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8' }).trim().split(' ') as [string, string];
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    dir,
    port: Number(port),
    async createDatabase() {
      const name = `t_${randomBytes(6).toString('hex')}`;
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE fieldlens_template`);
      } finally {
        await c.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    startReplica() {
      const [data, rport] = execFileSync('bash', [SCRIPT, 'replica', dir, port], { encoding: 'utf8' }).trim().split(' ') as [string, string];
      const sql = async (q: string) => {
        const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${rport}/postgres` });
        await c.connect();
        try {
          await c.query(q);
        } finally {
          await c.end();
        }
      };
      return {
        port: Number(rport),
        dataDir: data,
        url: (primaryUrl) => {
          const u = new URL(primaryUrl);
          u.port = rport;
          return u.toString();
        },
        stop: () => void execFileSync('bash', [SCRIPT, 'replica-stop', data]),
        start: () => void execFileSync('bash', [SCRIPT, 'replica-start', data, rport]),
        pauseReplay: () => sql('SELECT pg_wal_replay_pause()'),
        resumeReplay: () => sql('SELECT pg_wal_replay_resume()'),
      };
    },
    stop() {
      if (stopped) return;
      stopped = true;
      execFileSync('bash', [SCRIPT, 'stop', dir]);
    },
  };
}

/**
 * Scans of the data layers' feature tables a server has counted (pg_stat_user_tables: only
 * questions read them, no health probe does), to see where reads landed. A backend reports its
 * counts when it ends or has been idle a while, so read this after the service has closed its
 * connections: it is read until it stops moving.
 */
export async function layerScans(url: string): Promise<number> {
  const read = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query<{ n: number }>(
        `SELECT coalesce(sum(coalesce(idx_scan, 0) + coalesce(seq_scan, 0)), 0)::int AS n FROM pg_stat_user_tables WHERE relname ~ '^layer_features_[0-9]+$'`,
      );
      return r.rows[0]!.n;
    } finally {
      await c.end();
    }
  };
  let last = await read();
  for (let i = 0; i < 40; i++) {
    await new Promise((ok) => setTimeout(ok, 250));
    const now = await read();
    if (now === last && i >= 3) return now;
    last = now;
  }
  return last;
}
