import { z } from 'zod';
import { ComputeRequest, ComputeResponse } from '../../service/compute';
import { StreamRequest, StreamResponse } from '../../service/stream';
import { ImageryRequest, ImageryResponse } from '../../service/imagery';
import { RPC_MAX_BASE64, RPC_MAX_FILE_BYTES } from '../limits';

/** A file or image attached to a compute query; bytes travel base64-encoded over RPC. */
export const Attachment = z.object({
  field: z.enum(['files', 'images']),
  name: z.string().min(1).max(255),
  contentType: z.string().optional(),
  dataBase64: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

/** The files and images of one question: together they fit one call (see RPC_MAX_BASE64). */
export const Attachments = z
  .array(Attachment)
  .max(20)
  .refine((list) => list.reduce((n, a) => n + a.dataBase64.length, 0) <= RPC_MAX_BASE64, {
    message: `the files and images of a question may total at most ${(RPC_MAX_FILE_BYTES / 1048576).toFixed(1)} MiB`,
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
