import { z } from 'zod';
import { ComputeRequest, ComputeResponse } from '../../service/compute';
import { StreamRequest, StreamResponse } from '../../service/stream';
import { ImageryRequest, ImageryResponse } from '../../service/imagery';
import { ATTACHMENT_MAX_FILE_BYTES, ATTACHMENT_MAX_FILES, RPC_MAX_BASE64, RPC_MAX_FILE_BYTES } from '../limits';

const MIB = 1024 * 1024;
const fileMiB = ATTACHMENT_MAX_FILE_BYTES / MIB;

/** A file staged with uploads.stageStart / stageChunk; each staged file serves one call and is then removed. */
export const StagedId = z.string().min(1).max(100);

const AttachmentHead = {
  field: z.enum(['files', 'images']),
  name: z.string().min(1).max(255),
  contentType: z.string().optional(),
};

/** A file or image attached to a compute query, its bytes base64-encoded in the call. */
export const InlineAttachment = z
  .object({
    ...AttachmentHead,
    dataBase64: z.string().max(Math.ceil(ATTACHMENT_MAX_FILE_BYTES / 3) * 4, `a file may be at most ${fileMiB} MiB`),
  })
  .strict();
export type InlineAttachment = z.infer<typeof InlineAttachment>;

/** A file or image attached by its staged id (files too large to travel within one call). */
export const StagedAttachment = z.object({ ...AttachmentHead, stagedId: StagedId }).strict();
export type StagedAttachment = z.infer<typeof StagedAttachment>;

export const Attachment = z.union([InlineAttachment, StagedAttachment]);
export type Attachment = z.infer<typeof Attachment>;

/**
 * The files and images of one question: the service's limits (ATTACHMENT_MAX_FILES, 20 MiB a
 * file, checked for staged files when they are staged). Inline bytes fit one call together
 * (RPC_MAX_BASE64); larger files are staged.
 */
export const Attachments = z
  .array(Attachment)
  .max(ATTACHMENT_MAX_FILES, `a question may carry at most ${ATTACHMENT_MAX_FILES} files and images`)
  .refine((list) => list.reduce((n, a) => n + ('dataBase64' in a ? a.dataBase64.length : 0), 0) <= RPC_MAX_BASE64, {
    message: `files sent within the call may total at most ${(RPC_MAX_FILE_BYTES / MIB).toFixed(1)} MiB; stage larger ones first (uploads.stageStart)`,
  })
  .refine((list) => new Set(list.flatMap((a) => ('stagedId' in a ? [a.stagedId] : []))).size === list.filter((a) => 'stagedId' in a).length, {
    message: 'a staged file may be attached once',
  });

/** Chosen by the caller so the run can be cancelled (compute.cancel, stream.cancel, imagery.cancel) while pending. */
const RunId = z.string().min(1).max(100);

/** Reachability of the active connection's two hosts; message says why one is not reachable. */
export const Connectivity = z.object({
  online: z.boolean(),
  base: z.boolean(),
  search: z.boolean(),
  message: z.string().nullable(),
});
export type Connectivity = z.infer<typeof Connectivity>;

const CancelInput = z.object({ runId: RunId }).strict();
/** cancelled: false when no run of that kind was pending under that id. */
const CancelOutput = z.object({ cancelled: z.boolean() });

/**
 * What the router checks of a run's output. The service client validated the response as it
 * came over HTTP (up to 2,000 features); checking it again in the same process would only
 * double the cost, so the router checks the envelope around it.
 */
const RunOutputCheck = z.object({ queryId: z.number().int(), response: z.unknown() });

/** Every run is stored in the offline cache; queryId is its id there. */
export const computeMethods = {
  'compute.run': {
    input: z
      .object({ request: ComputeRequest, attachments: Attachments.optional(), runId: RunId.optional() })
      .strict(),
    output: z.object({ queryId: z.number().int(), response: ComputeResponse }),
    outputCheck: RunOutputCheck,
  },
  'stream.run': {
    input: z.object({ request: StreamRequest, runId: RunId.optional() }).strict(),
    output: z.object({ queryId: z.number().int(), response: StreamResponse }),
    outputCheck: RunOutputCheck,
  },
  /** Paging uses the request's `page` (1-based); the response carries page and pageTotal. */
  'imagery.search': {
    input: z.object({ request: ImageryRequest, runId: RunId.optional() }).strict(),
    output: z.object({ queryId: z.number().int(), response: ImageryResponse }),
    outputCheck: RunOutputCheck,
  },
  /** Cancels a pending compute.run by its runId; the run fails with CANCELLED. */
  'compute.cancel': { input: CancelInput, output: CancelOutput },
  /** Cancels a pending stream.run by its runId. */
  'stream.cancel': { input: CancelInput, output: CancelOutput },
  /** Cancels a pending imagery.search by its runId. */
  'imagery.cancel': { input: CancelInput, output: CancelOutput },
  /**
   * Probes both hosts of the active connection now (GET /health without a key; any HTTP answer
   * counts as reachable) and reports the state. Never waits longer than the probe timeout.
   */
  'service.health': { input: z.object({}).strict(), output: Connectivity },
} as const;

export const computeEvents = {
  /** The service became reachable or unreachable. */
  'connectivity.changed': Connectivity,
} as const;
