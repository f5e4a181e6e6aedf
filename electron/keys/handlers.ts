import { RpcError } from '../../shared/rpc/errors';
import { LOCAL_PROFILE_ID } from '../../shared/rpc/methods/profiles';
import type { Handlers } from '../rpc/router';
import type { Logger } from '../ground/logger';
import type { KeyService } from './key-service';
import { runKeyTest, type FetchFn } from './key-test';

export type KeyHandlers = Pick<Handlers, 'keys.set' | 'keys.delete' | 'keys.status' | 'keys.test'>;

/** What key handlers need to know of a profile; the profile service meets it (wired in the root). */
export interface ProfileLookup {
  /** Throws NOT_FOUND for an unknown id. */
  get(id: string): { kind: 'local' | 'remote'; baseUrl: string; searchBaseUrl: string };
}

export interface KeyHandlerDeps {
  keys: KeyService;
  profiles: ProfileLookup;
  fetch: FetchFn;
  logger: Logger;
  testTimeoutMs?: number;
}

// The bundled service's keys are generated and read by the app; users manage remote keys only.
function assertUserManaged(profileId: string): void {
  if (profileId === LOCAL_PROFILE_ID)
    throw new RpcError('CONFLICT', 'The keys of the bundled Local profile are managed by Fieldlens');
}

/** keys.*: write-only key input; outputs say whether a key is set and when, never what it is. */
export function createKeyHandlers(d: KeyHandlerDeps): KeyHandlers {
  return {
    'keys.set': async ({ profileId, kind, key }) => {
      d.profiles.get(profileId);
      assertUserManaged(profileId);
      return d.keys.set(profileId, kind, key);
    },
    'keys.delete': async ({ profileId, kind }) => {
      d.profiles.get(profileId);
      assertUserManaged(profileId);
      return d.keys.delete(profileId, kind);
    },
    'keys.status': async ({ profileId }) => {
      d.profiles.get(profileId);
      return { profileId, keys: await d.keys.status(profileId) };
    },
    'keys.test': async ({ profileId, kind }) => {
      const p = d.profiles.get(profileId);
      const key =
        profileId === LOCAL_PROFILE_ID
          ? (await d.keys.localServiceKeys(profileId))[kind]
          : await d.keys.getKey(profileId, kind);
      const result = await runKeyTest(
        { profileId, kind, baseUrl: p.baseUrl, searchBaseUrl: p.searchBaseUrl },
        key,
        d.fetch,
        {
          timeoutMs: d.testTimeoutMs,
          noAddress: p.kind === 'local' ? 'The bundled service is not running' : undefined,
        },
      );
      d.logger.info('Key tested', { profileId, kind, outcome: result.outcome, httpStatus: result.httpStatus });
      return result;
    },
  };
}
