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
  /** Stops the server and deletes its folder. */
  stop(): void;
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
    stop() {
      if (stopped) return;
      stopped = true;
      execFileSync('bash', [SCRIPT, 'stop', dir]);
    },
  };
}
