import { z } from 'zod';
import { ConnectionInfo } from './app';

/** The bundled service's profile always exists under this id and cannot be edited or deleted. */
export const LOCAL_PROFILE_ID = 'local';

// Keys travel to these hosts, so only http(s) addresses are accepted.
const HttpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, 'Must be an http(s) address without credentials, query or fragment');

export const ProfileId = z.string().min(1).max(64);

export const Profile = z.object({
  id: ProfileId,
  label: z.string(),
  kind: z.enum(['local', 'remote']),
  /** Compute and stream host ({base_url} of the spec); empty while the bundled service is not running. */
  baseUrl: z.string(),
  /** Imagery search host ({search_base_url} of the spec). */
  searchBaseUrl: z.string(),
  active: z.boolean(),
});
export type Profile = z.infer<typeof Profile>;

export const ProfileList = z.object({
  activeProfileId: ProfileId,
  profiles: z.array(Profile),
});
export type ProfileList = z.infer<typeof ProfileList>;

export const ProfileSaveInput = z
  .object({
    /** Absent creates a new remote profile. */
    id: ProfileId.optional(),
    label: z.string().trim().min(1).max(80),
    baseUrl: HttpUrl,
    searchBaseUrl: HttpUrl,
  })
  .strict();
export type ProfileSaveInput = z.infer<typeof ProfileSaveInput>;

export const profilesMethods = {
  'profiles.list': { input: z.object({}).strict(), output: ProfileList },
  'profiles.save': { input: ProfileSaveInput, output: Profile },
  'profiles.delete': { input: z.object({ id: ProfileId }).strict(), output: ProfileList },
  'profiles.select': { input: z.object({ id: ProfileId }).strict(), output: ConnectionInfo },
} as const;
