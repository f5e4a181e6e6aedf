import { LOCAL_PROFILE_ID } from '../../shared/rpc/methods/profiles';
import type { Handlers } from '../rpc/router';
import type { ProfileService } from './profile-service';

export type ProfileHandlers = Pick<Handlers, 'profiles.list' | 'profiles.save' | 'profiles.delete' | 'profiles.select'>;

/** The one thing profile handlers ask of the key store; the key service meets it (wired in the root). */
export interface ProfileKeys {
  deleteAll(profileId: string): Promise<void>;
}

export function createProfileHandlers(profiles: ProfileService, keys: ProfileKeys): ProfileHandlers {
  return {
    'profiles.list': () => profiles.list(),
    'profiles.save': (input) => profiles.save(input),
    'profiles.delete': async ({ id }) => {
      profiles.get(id);
      if (id === LOCAL_PROFILE_ID) return profiles.delete(id); // refused there, keys untouched
      // Keys first: if the keychain refuses, the profile stays, so no key is left without one.
      await keys.deleteAll(id);
      return profiles.delete(id);
    },
    'profiles.select': ({ id }) => profiles.select(id),
  };
}
