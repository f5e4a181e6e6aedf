import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenToChannel } from '../../../electron/local-service/pg/notifications';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster';

let cluster: PgCluster;
let url: string;
beforeAll(async () => {
  cluster = startPgCluster();
  url = await cluster.createDatabase();
});
afterAll(() => cluster?.stop());

const until = async (what: string, ok: () => boolean) => {
  for (let t = 0; t < 100 && !ok(); t++) await new Promise((r) => setTimeout(r, 50));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

describe('listening for notifications', () => {
  it('hears what another session sends, connects again after losing its connection and says it may have missed some', async () => {
    const heard: (string | null)[] = [];
    const errors: unknown[] = [];
    const listener = listenToChannel({ url, channel: 'layer changes', onNotify: (p) => heard.push(p), onError: (e) => errors.push(e), retryMs: 50 });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const listening = async () => Number((await other.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fieldlens-listen'")).rows[0].count);
      let n = 0;
      for (let t = 0; t < 100 && (n = await listening()) === 0; t++) await new Promise((r) => setTimeout(r, 50));
      expect(n).toBe(1);
      await other.query(`SELECT pg_notify('layer changes', 'first'), pg_notify('elsewhere', 'not this')`);
      await until('the first notification', () => heard.length === 1);
      expect(heard).toEqual(['first']);

      // The server ends the listening session (a restart, a network cut).
      await other.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'fieldlens-listen'");
      await until('the connection to come back', () => heard.length === 2);
      expect(heard).toEqual(['first', null]);
      expect(errors.length).toBeGreaterThan(0);
      await other.query(`SELECT pg_notify('layer changes', 'second')`);
      await until('the second notification', () => heard.length === 3);
      expect(heard).toEqual(['first', null, 'second']);
    } finally {
      await listener.close();
      await other.end();
    }
    // Closed: nothing listens any more.
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    for (let t = 0; t < 40; t++) {
      if (Number((await check.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fieldlens-listen'")).rows[0].count) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(Number((await check.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fieldlens-listen'")).rows[0].count)).toBe(0);
    await check.end();
  });
});
