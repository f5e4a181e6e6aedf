import { z } from 'zod';
import { ComputeRequest, ComputeResponse } from '../../service/compute';
import { StreamRequest, StreamResponse } from '../../service/stream';
import { ImageryRequest, ImageryResponse } from '../../service/imagery';

/** A file or image attached to a compute query; bytes travel base64-encoded over RPC. */
export const Attachment = z.object({
  field: z.enum(['files', 'images']),
  name: z.string().min(1).max(255),
  contentType: z.string().optional(),
  dataBase64: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

/** Chosen by the caller so the run can be cancelled with compute.cancel while it is pending. */
const RunId = z.string().min(1).max(100);

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
      .object({ request: ComputeRequest, attachments: z.array(Attachment).max(20).optional(), runId: RunId.optional() })
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
  /** Cancels a pending compute.run, stream.run or imagery.search by its runId; it fails with CANCELLED. */
  'compute.cancel': {
    input: z.object({ runId: RunId }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
} as const;

export const Connectivity = z.object({
  online: z.boolean(),
  base: z.boolean(),
  search: z.boolean(),
  message: z.string().nullable(),
});
export type Connectivity = z.infer<typeof Connectivity>;

export const computeEvents = {
  /** The service became reachable or unreachable. */
  'connectivity.changed': Connectivity,
} as const;
