import { expect, it } from 'vitest';
import type { RpcClient } from '../../../shared/rpc/client';
import type { EventBus } from '../../../electron/rpc/events';
import { packageVersion } from '../../support/app';

export interface SuiteEnv {
  client: () => RpcClient;
  bus: () => EventBus;
}

/** The RPC contract as any transport must carry it; run over each transport. */
export function rpcContractSuite(env: SuiteEnv): void {
  it('app.info returns the package version', async () => {
    const r = await env.client().call('app.info', {});
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.version).toBe(packageVersion);
      expect(r.value.name).toBe('Fieldlens');
    }
  });

  it('connection.active names the active connection', async () => {
    const r = await env.client().call('connection.active', {});
    expect(r.ok && r.value.label.length > 0).toBe(true);
  });

  it('an unknown method gives NOT_FOUND', async () => {
    const r = await env.client().call('nope.never' as 'app.info', {});
    expect(r).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Unknown method: nope.never' } });
  });

  it('bad input gives VALIDATION with the issues', async () => {
    const r = await env.client().call('app.info', { surprise: 1 } as never);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('VALIDATION');
      expect(JSON.stringify(r.error.details)).toContain('surprise');
    }
  });

  it('events reach subscribers and stop after unsubscribe', async () => {
    const seen: string[] = [];
    const off = env.client().on('connection.changed', (c) => seen.push(c.label));
    // Let a subscription settle on transports that register lazily.
    await env.client().call('app.info', {});
    const payload = {
      profileId: 'p2',
      label: 'Field office',
      kind: 'remote' as const,
      baseUrl: 'https://example.test',
      searchBaseUrl: 'https://search.example.test',
    };
    env.bus().emit('connection.changed', payload);
    await expect.poll(() => seen).toEqual(['Field office']);
    off();
    env.bus().emit('connection.changed', { ...payload, label: 'after' });
    await env.client().call('app.info', {});
    expect(seen).toEqual(['Field office']);
  });
}
