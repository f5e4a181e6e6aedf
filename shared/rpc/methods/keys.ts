import { z } from 'zod';
import { ProfileId } from './profiles';

/** Bearer: compute and stream (Authorization header). search: imagery search (x-api-key header). */
export const KeyKindSchema = z.enum(['bearer', 'search']);
export type KeyKind = z.infer<typeof KeyKindSchema>;
/** One key of each kind: what the bundled service runs with. */
export type LocalServiceKeys = Record<KeyKind, string>;

/** What may be said about a key: whether it is set and since when. Never its value. */
export const KeyState = z.object({
  kind: KeyKindSchema,
  set: z.boolean(),
  /** ISO time of the last write, when known. */
  setAt: z.string().nullable(),
  /** Given in the process environment (read only; changed where it is set), and by which variable. */
  from: z.literal('environment').optional(),
  variable: z.string().optional(),
});
export type KeyState = z.infer<typeof KeyState>;

export const KeyStatus = z.object({
  profileId: ProfileId,
  keys: z.array(KeyState),
});
export type KeyStatus = z.infer<typeof KeyStatus>;

// Header-safe characters only; the message never repeats the input.
const KeyValue = z
  .string()
  .trim()
  .min(8, 'Key is too short')
  .max(4096, 'Key is too long')
  .regex(/^[\x21-\x7e]+$/, 'Key may contain only visible ASCII characters, no spaces');

export const KeyTestResult = z.object({
  profileId: ProfileId,
  kind: KeyKindSchema,
  /** ok: accepted; unauthorized: 401/403; unreachable: no answer; http: any other status; not_set: no key. */
  outcome: z.enum(['ok', 'unauthorized', 'unreachable', 'http', 'not_set']),
  httpStatus: z.number().int().nullable(),
  message: z.string(),
  durationMs: z.number(),
});
export type KeyTestResult = z.infer<typeof KeyTestResult>;

const Target = { profileId: ProfileId, kind: KeyKindSchema };

/** Where keys are kept: the system keychain, the encrypted key file (opened with a passphrase), or nowhere yet. */
export const KeyBackendState = z.object({
  backend: z.enum(['keychain', 'file', 'none']),
  /** Whether a key file exists (locked or open). */
  keyFile: z.boolean(),
});
export type KeyBackendState = z.infer<typeof KeyBackendState>;

export const keysMethods = {
  'keys.backend': { input: z.object({}).strict(), output: KeyBackendState },
  /** Opens the key file with its passphrase, or makes it under this one; keys are kept there from then on. */
  'keys.unlock': { input: z.object({ passphrase: z.string().min(8, 'The passphrase needs at least 8 characters').max(1024) }).strict(), output: KeyBackendState },
  /** Write-only: the key goes in, only its state comes back. */
  'keys.set': { input: z.object({ ...Target, key: KeyValue }).strict(), output: KeyState },
  'keys.delete': { input: z.object(Target).strict(), output: KeyState },
  'keys.status': { input: z.object({ profileId: ProfileId }).strict(), output: KeyStatus },
  'keys.test': { input: z.object(Target).strict(), output: KeyTestResult },
} as const;
