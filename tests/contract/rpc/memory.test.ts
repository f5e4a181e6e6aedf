import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import type { RpcClient } from '../../../shared/rpc/client';
import type { AppServices } from '../../../electron/root/app-services';
import { bootTestApp } from '../../support/app';
import { rpcContractSuite } from './suite';

describe('RPC contract over the in-memory transport', () => {
  let services: AppServices;
  let client: RpcClient;
  beforeAll(async () => {
    ({ services, rpc: client } = await bootTestApp(mkdtempSync(join(tmpdir(), 'fl-mem-'))));
  });
  afterAll(() => services.close());
  rpcContractSuite({ client: () => client, bus: () => services.bus });
});
