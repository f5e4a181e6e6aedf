import { z } from 'zod';
import { ComputeRequest, QueryText } from '../../service/compute';
import { Attachments } from './compute';

export const QueuedQuestion = z.object({
  id: z.number().int(),
  /** The profile it was asked on. */
  profileId: z.string(),
  /** The profile that answered it (its History entry's), null until answered: another than profileId when the connection was switched meanwhile. */
  answeredOn: z.string().nullable(),
  queryText: z.string(),
  request: z.record(z.string(), z.unknown()),
  /** queued: waits for the connection; running: being sent; answered: in History as queryId; failed: see error. */
  status: z.enum(['queued', 'running', 'answered', 'failed']),
  createdAt: z.number(),
  updatedAt: z.number(),
  queryId: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  attachmentNames: z.array(z.string()),
});
export type QueuedQuestion = z.infer<typeof QueuedQuestion>;

const Id = z.object({ id: z.number().int().positive() }).strict();

export const queueMethods = {
  'queue.list': { input: z.object({}).strict(), output: z.object({ items: z.array(QueuedQuestion) }) },
  /** Keeps a compute question to run when the connection returns (at once when it is up). */
  'queue.add': {
    input: z.object({ request: ComputeRequest, attachments: Attachments.optional() }).strict(),
    output: QueuedQuestion,
  },
  /** A new question text for a question still waiting. */
  'queue.edit': { input: Id.extend({ query: QueryText }).strict(), output: QueuedQuestion },
  'queue.drop': { input: Id, output: z.object({ dropped: z.boolean() }) },
} as const;

export const queueEvents = {
  /** A queued question was answered (queryId in History) or failed for good. */
  'queue.settled': QueuedQuestion,
} as const;
