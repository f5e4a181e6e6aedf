import type { ErrorCode } from '../../shared/rpc/errors';
import { UnreadRefusal } from '../../shared/service/reading';

export interface FieldIssue {
  field: string;
  message: string;
}

/** Every failure of a service call: an RPC error code, the HTTP status if any, and the server's words. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly info: {
      status?: number;
      /** What the server said, taken from whatever body shape it used. */
      serverMessage?: string;
      fieldErrors?: FieldIssue[];
      /** What part of a question was not read, when the service refused it for that (422, `unread_question`). */
      refusal?: UnreadRefusal;
      /** The error body as received (text), for history and diagnostics. */
      body?: string;
      url?: string;
      /** Whether the request may have reached the service (false: nothing was sent). */
      sent?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  get status(): number | undefined {
    return this.info.status;
  }

  /** Details safe to hand to the renderer (no headers, no keys). */
  details(): Record<string, unknown> {
    const d: Record<string, unknown> = {};
    if (this.info.status !== undefined) d['status'] = this.info.status;
    if (this.info.serverMessage) d['serverMessage'] = this.info.serverMessage;
    if (this.info.fieldErrors?.length) d['fieldErrors'] = this.info.fieldErrors;
    if (this.info.refusal) d['refusal'] = this.info.refusal;
    return d;
  }
}

const MAX_MESSAGE = 500;

const clip = (s: string) => (s.length > MAX_MESSAGE ? s.slice(0, MAX_MESSAGE - 1) + '…' : s);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** Field errors in the shapes servers commonly use (RFC 9457 extension, maps, zod, FastAPI). */
function fieldErrorsOf(body: Record<string, unknown>): FieldIssue[] {
  const out: FieldIssue[] = [];
  const fromList = (list: unknown[]) => {
    for (const e of list) {
      if (!isObj(e)) continue;
      const loc = e['field'] ?? e['path'] ?? e['loc'] ?? e['name'] ?? e['param'] ?? e['pointer'];
      const field = Array.isArray(loc) ? loc.filter((p) => p !== 'body').join('.') : typeof loc === 'string' ? loc : '';
      const message = text(e['message']) ?? text(e['msg']) ?? text(e['detail']) ?? text(e['title']);
      if (message) out.push({ field, message });
    }
  };
  for (const key of ['errors', 'issues', 'detail', 'invalid_params', 'details']) {
    const v = body[key];
    if (Array.isArray(v)) fromList(v);
    else if (key === 'errors' && isObj(v))
      for (const [field, msgs] of Object.entries(v)) {
        const list = Array.isArray(msgs) ? msgs : [msgs];
        for (const m of list) if (text(m)) out.push({ field, message: text(m)! });
      }
    if (out.length) break;
  }
  return out;
}

/**
 * The server's message and field errors from an error body of any shape: problem+json, other
 * JSON (`message`, `error`, `error.message`, `errors[]`), plain text or HTML.
 */
export function describeErrorBody(
  raw: string,
  contentType: string | null,
): { message?: string; fieldErrors: FieldIssue[]; refusal?: UnreadRefusal } {
  const trimmed = raw.trim();
  if (!trimmed) return { fieldErrors: [] };
  let parsed: unknown;
  if (/json/i.test(contentType ?? '') || /^[[{"]/.test(trimmed)) {
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      parsed = undefined;
    }
  }
  if (isObj(parsed)) {
    const fieldErrors = fieldErrorsOf(parsed);
    const err = parsed['error'];
    const message =
      text(parsed['detail']) ??
      text(parsed['message']) ??
      text(err) ??
      (isObj(err) ? text(err['message']) ?? text(err['detail']) : undefined) ??
      text(parsed['error_description']) ??
      text(parsed['title']) ??
      text(parsed['msg']) ??
      (fieldErrors.length ? fieldErrors.map((f) => (f.field ? `${f.field}: ${f.message}` : f.message)).join('; ') : undefined) ??
      JSON.stringify(parsed);
    // A question refused for words it could not read: the parts are kept, so the app can offer the rest.
    const refusal = UnreadRefusal.safeParse(parsed);
    return { message: clip(message), fieldErrors, ...(refusal.success ? { refusal: refusal.data } : {}) };
  }
  if (typeof parsed === 'string') return { message: clip(parsed), fieldErrors: [] };
  if (Array.isArray(parsed)) {
    const fieldErrors: FieldIssue[] = [];
    for (const e of parsed) if (text(e)) fieldErrors.push({ field: '', message: text(e)! });
    return { message: clip(fieldErrors.map((f) => f.message).join('; ') || trimmed), fieldErrors };
  }
  // Text or HTML: keep the words, drop markup.
  const words = /html/i.test(contentType ?? '') || /^<!doctype|^<html/i.test(trimmed)
    ? (trimmed.match(/<title>([^<]*)<\/title>/i)?.[1] ?? trimmed.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim()
    : trimmed.replace(/\s+/g, ' ');
  return { message: clip(words), fieldErrors: [] };
}

/** The RPC code for an HTTP error status. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'AUTH';
  if (status === 404 || status === 410) return 'NOT_FOUND';
  if (status === 400 || status === 422) return 'VALIDATION';
  if (status === 408 || status === 504) return 'TIMEOUT';
  if (status === 409) return 'CONFLICT';
  return 'HTTP';
}

/** Error codes (anywhere in an error's cause chain) of a service that cannot be reached at all. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function causeCodes(e: unknown): string[] {
  const codes: string[] = [];
  for (let c: unknown = e, depth = 0; c && depth < 6; depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const errors = (c as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const x of errors) codes.push(...causeCodes(x));
    c = (c as { cause?: unknown }).cause;
  }
  return codes;
}

export const isUnreachable = (e: unknown) => causeCodes(e).some((c) => UNREACHABLE.has(c));
export const isRefused = (e: unknown) => causeCodes(e).includes('ECONNREFUSED');

/** Milliseconds to wait from a Retry-After header (seconds or HTTP date); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const v = header.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}
