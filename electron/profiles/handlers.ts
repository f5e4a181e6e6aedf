import { LOCAL_PROFILE_ID } from '../../shared/rpc/methods/profiles';
import type { Handlers } from '../rpc/router';
import type { KeyService } from '../keys/key-service';
import type { ProfileService } from './profile-service';

export type ProfileHandlers = Pick<Handlers, 'profiles.list' | 'profiles.save' | 'profiles.delete' | 'profiles.select'>;

export function createProfileHandlers(profiles: ProfileService, keys: KeyService): ProfileHandlers {
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
