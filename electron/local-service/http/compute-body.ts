import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { isValidCell } from 'h3-js';
import { ATTACHMENT_MAX_FILE_BYTES, ATTACHMENT_MAX_FILES } from '../../../shared/rpc/limits';
import { ComputeFormFields, ComputeRequest } from '../../../shared/service/compute';
import { MEASUREMENTS, type Measurement } from '../query/plan';
import { printableName } from '../uploads';
import { DEFAULT_STALL, stalledDetail, watchStall, type StallLimits } from './body-watch';
import { fieldErrors, type FieldError } from './problem';

// A compute request's body as received (JSON, or multipart with its files written to disk as they
// arrive) and its fields checked; what the request asks is answered in compute.ts.

export const UPLOAD_LIMITS = { fileSize: ATTACHMENT_MAX_FILE_BYTES, files: ATTACHMENT_MAX_FILES, fields: 50, fieldSize: 256 * 1024, parts: 80 };
/**
 * The largest body a multipart request may declare: its files and fields at their limits, and
 * a mebibyte for part headers. A request declaring more is refused before its body is read.
 */
export const MAX_UPLOAD_REQUEST_BYTES =
  UPLOAD_LIMITS.files * UPLOAD_LIMITS.fileSize + UPLOAD_LIMITS.fields * UPLOAD_LIMITS.fieldSize + 1024 * 1024;
/** Fields of spec 2.1 (anything else is reported in warnings and ignored). */
const KNOWN_FIELDS = new Set([
  'query', 'limit', 'answer', 'user_id', 'area_id', 'coordinates', 'h3_ids', 'include_stats', 'measurement', 'mode',
  'model', 'search_id', 'view_bbox', 'files', 'images',
]);

export class Invalid extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** Problem extension member saying which kind of problem it is (uploads). */
    readonly code?: string,
  ) {
    super(detail);
  }
}

/** Longest file name echoed in results and messages. */
const MAX_FILE_NAME = 200;
const MIB = 1024 * 1024;

/** An uploaded file as received: written to `path` and hashed (SHA-256, hex) on the way. */
export interface ReceivedFile {
  name: string;
  path: string;
  hash: string;
}

export interface Body {
  fields: Record<string, unknown>;
  files: ReceivedFile[];
  /** File names that were too long and were shortened, with their full length. */
  longNames: { name: string; length: number }[];
  images: number;
  multipart: boolean;
}

/** How a multipart body is received: when it stalls, and the most it may bring. */
export interface ReceiptLimits {
  stall: StallLimits;
  maxRequestBytes: number;
}

/**
 * `temps` collects the files written for this request, for the caller to remove whatever happens.
 * A multipart body is cut (its rest never read, the answer closes the connection) as soon as a
 * file passes its limit (413 file_too_large), the body passes the request limit (413
 * request_too_large: a chunked body declares no length) or it stalls (408 body_timeout).
 */
export async function readBody(
  req: FastifyRequest,
  dir: string,
  temps: string[],
  limits: ReceiptLimits = { stall: DEFAULT_STALL, maxRequestBytes: MAX_UPLOAD_REQUEST_BYTES },
): Promise<Body> {
  if (!req.isMultipart()) {
    const b = req.body;
    if (b !== undefined && (b === null || typeof b !== 'object' || Array.isArray(b)))
      throw new Invalid(400, 'Bad Request', 'The body must be a JSON object.');
    return { fields: (b ?? {}) as Record<string, unknown>, files: [], longNames: [], images: 0, multipart: false };
  }
  const body: Body = { fields: {}, files: [], longNames: [], images: 0, multipart: true };
  const receipt = watchReceipt(req, limits);
  // The receipt's count starts before the parts are read (the same tick), so it sees every byte.
  const reading = readParts(req, body, dir, temps, receipt);
  try {
    await Promise.race([reading, receipt.cut]);
  } catch (e) {
    // The rest of the body is not read, whatever ended the reading. What the parts reader still
    // does once the body is cut (it ends when the socket goes) is dropped, and any file it wrote
    // meanwhile removed.
    req.raw.unpipe();
    void reading.catch(() => {}).then(() => Promise.all(temps.map((t) => rm(t, { force: true }))));
    throw e instanceof Invalid ? e : (tooLarge(e) ?? cutOff(req, e) ?? e);
  } finally {
    receipt.stop();
  }
  return body;
}

interface Receipt {
  /** Rejects with the problem once the body is cut. */
  cut: Promise<never>;
  tripped: boolean;
  trip(problem: Invalid): void;
  stop(): void;
}

/** Counts a multipart body's bytes and watches it for a stall; trip() stops feeding the parts reader. */
function watchReceipt(req: FastifyRequest, limits: ReceiptLimits): Receipt {
  let reject!: (e: Invalid) => void;
  const cut = new Promise<never>((_, no) => (reject = no));
  cut.catch(() => {});
  let bytes = 0;
  const count = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limits.maxRequestBytes) {
      const detail = `The request body passed ${Math.floor(limits.maxRequestBytes / MIB)} MiB, the most a request may send.`;
      receipt.trip(new Invalid(413, 'Payload Too Large', detail, undefined, 'request_too_large'));
    }
  };
  const stopStall = watchStall(req, limits.stall, () => receipt.trip(new Invalid(408, 'Request Timeout', stalledDetail(limits.stall), undefined, 'body_timeout')));
  const receipt: Receipt = {
    cut,
    tripped: false,
    trip(problem) {
      if (receipt.tripped) return;
      receipt.tripped = true;
      receipt.stop();
      // Busboy gets no more bytes: the rest of the body stays unread.
      req.raw.unpipe();
      reject(problem);
    },
    stop() {
      req.raw.off('data', count);
      stopStall();
    },
  };
  req.raw.on('data', count);
  return receipt;
}

async function readParts(req: FastifyRequest, body: Body, dir: string, temps: string[], receipt: Receipt): Promise<void> {
  const fields = body.fields as Record<string, string | string[]>;
  let fileParts = 0;
  // One file part more than the limit is let through so the refusal can name it.
  for await (const part of req.parts({ limits: { ...UPLOAD_LIMITS, files: UPLOAD_LIMITS.files + 1 } })) {
    if (receipt.tripped) return;
    if (part.type === 'file') {
      // A file past its limit cuts the body at once, rather than reading the rest of the part.
      part.file.once('limit', () => receipt.trip(tooLarge({ code: 'FST_REQ_FILE_TOO_LARGE', part })!));
      const name = shortName(part.filename || `file${body.files.length + 1}`);
      if (part.filename && part.filename.length > MAX_FILE_NAME) body.longNames.push({ name, length: part.filename.length });
      if (++fileParts > UPLOAD_LIMITS.files) {
        const detail = `${name}: too many files: at most ${UPLOAD_LIMITS.files} files (uploads and images together) per request`;
        throw new Invalid(413, 'Payload Too Large', detail, [{ field: part.fieldname, message: detail }], 'files_limit');
      }
      // Files go to disk as they arrive, hashed on the way: a request holds none of its bytes
      // in memory until each file is read, one at a time. Other file parts are only counted.
      if (part.fieldname === 'files') {
        const path = join(dir, randomUUID());
        temps.push(path);
        const hash = createHash('sha256');
        const tap = new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        });
        await pipeline(part.file, tap, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
        if (part.file.truncated) throw tooLarge({ code: 'FST_REQ_FILE_TOO_LARGE', part });
        body.files.push({ name, path, hash: hash.digest('hex') });
      } else {
        for await (const chunk of part.file) void chunk;
        if (part.file.truncated) throw tooLarge({ code: 'FST_REQ_FILE_TOO_LARGE', part });
        if (part.fieldname === 'images') body.images++;
        else fields[part.fieldname] = '(file)';
      }
    } else {
      const v = String(part.value);
      const prev = fields[part.fieldname];
      fields[part.fieldname] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
  }
}

/** A body that stopped before its end (the client went away): a client error, not one to log. */
function cutOff(req: FastifyRequest, e: unknown): Invalid | null {
  const code = (e as { code?: string })?.code;
  if (!req.raw.aborted && code !== 'FST_MP_PREMATURE_CLOSE' && code !== 'ECONNRESET') return null;
  return new Invalid(400, 'Bad Request', 'The request body ended before its multipart data was complete.', undefined, 'incomplete_body');
}

/** The multipart size error (from the part or from the iterator) as a 413 naming the file and the limit. */
function tooLarge(e: unknown): Invalid | null {
  const err = e as { code?: string; part?: { filename?: string; fieldname?: string } };
  if (err?.code !== 'FST_REQ_FILE_TOO_LARGE') return null;
  const name = shortName(err.part?.filename || 'a file');
  const detail = `${name}: file too large: at most ${UPLOAD_LIMITS.fileSize / MIB} MiB per file`;
  return new Invalid(413, 'Payload Too Large', detail, [{ field: err.part?.fieldname ?? 'files', message: detail }], 'file_too_large');
}

const shortName = (given: string) => {
  const name = printableName(given);
  return name.length > MAX_FILE_NAME ? name.slice(0, MAX_FILE_NAME - 1) + '…' : name;
};

export function validate(body: Body): { req: ComputeRequest; extra: string[] } {
  const extra = Object.keys(body.fields).filter((k) => !KNOWN_FIELDS.has(k));
  const known = Object.fromEntries(Object.entries(body.fields).filter(([k]) => KNOWN_FIELDS.has(k) && k !== 'files' && k !== 'images'));
  const errors: FieldError[] = [];
  if (!body.multipart && ('files' in body.fields || 'images' in body.fields))
    errors.push({ field: 'files', message: 'files and images are sent as multipart/form-data' });
  for (const [k, v] of Object.entries(known))
    if (body.multipart && Array.isArray(v) && k !== 'h3_ids') errors.push({ field: k, message: `${k} was sent more than once` });
  const parsed = (body.multipart ? ComputeFormFields : ComputeRequest).safeParse(known);
  if (!parsed.success) errors.push(...fieldErrors(parsed.error));
  if (errors.length || !parsed.success) throw new Invalid(400, 'Bad Request', 'The request has invalid fields.', errors);
  const req = parsed.data;
  const cells = req.h3_ids === undefined ? [] : Array.isArray(req.h3_ids) ? req.h3_ids : [req.h3_ids];
  cells.forEach((c, i) => {
    if (!isValidCell(c)) errors.push({ field: Array.isArray(req.h3_ids) ? `h3_ids.${i}` : 'h3_ids', message: `"${c}" is not a valid H3 cell` });
  });
  if (req.measurement !== undefined && !MEASUREMENTS.includes(req.measurement as Measurement))
    errors.push({ field: 'measurement', message: `measurement must be one of ${MEASUREMENTS.join(', ')}` });
  if (errors.length) throw new Invalid(400, 'Bad Request', 'The request has invalid fields.', errors);
  return { req, extra };
}
