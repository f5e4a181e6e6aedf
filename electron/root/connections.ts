import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import type { LocalServiceKeys } from '../../shared/rpc/methods/keys';
import { LOCAL_PROFILE_ID } from '../../shared/rpc/methods/profiles';
import type { Logger } from '../ground/logger';
import { createKeyHandlers, type KeyHandlers } from '../keys/handlers';
import { createEnvKeys } from '../keys/env-keys';
import { KeyService } from '../keys/key-service';
import type { FetchFn } from '../keys/key-test';
import type { SecretStore } from '../keys/secret-store';
import { createProfileHandlers, type ProfileHandlers } from '../profiles/handlers';
import { ProfileService } from '../profiles/profile-service';

export interface ConnectionsDeps {
  dataDir: string;
  logger: Logger;
  store: SecretStore;
  fetch: FetchFn;
  localEndpoint?: () => { baseUrl: string; searchBaseUrl: string } | null;
  onActiveChanged?: (c: ConnectionInfo) => void;
  testTimeoutMs?: number;
  /** The process environment, for keys given there (`env-keys.ts`); none when absent. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface Connections {
  keys: KeyService;
  profiles: ProfileService;
  handlers: KeyHandlers & ProfileHandlers & { 'connection.active': () => ConnectionInfo };
  /** For AppDeps.localServiceKeys: the bundled service's keys, generated on first run. */
  localServiceKeys: () => Promise<LocalServiceKeys>;
}

/** Profiles and their keys, wired together; app-services spreads `handlers` into its map. */
export function createConnections(d: ConnectionsDeps): Connections {
  // The bundled service's keys are Fieldlens' own: never taken from the environment.
  const labelOf = (id: string) => {
    if (id === LOCAL_PROFILE_ID) return null;
    try {
      return profiles.get(id).label;
    } catch {
      return null;
    }
  };
  const keys = new KeyService(d.store, d.logger, d.env ? createEnvKeys(d.env, labelOf) : null);
  const profiles: ProfileService = new ProfileService({
    dataDir: d.dataDir,
    logger: d.logger,
    localEndpoint: d.localEndpoint,
    onActiveChanged: d.onActiveChanged,
  });
  return {
    keys,
    profiles,
    handlers: {
      ...createProfileHandlers(profiles, keys),
      ...createKeyHandlers({ keys, profiles, fetch: d.fetch, logger: d.logger, testTimeoutMs: d.testTimeoutMs }),
      'connection.active': () => profiles.active(),
    },
    localServiceKeys: () => keys.localServiceKeys(LOCAL_PROFILE_ID),
  };
}
