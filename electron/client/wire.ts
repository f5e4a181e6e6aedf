import { z } from 'zod';
import { ServiceError } from './errors';
import type { Attachment } from './options';

// Small pieces of the client's HTTP exchange: request checks, multipart bodies, causes, waits.

/** A wait that ends early, rejecting with the signal's reason, when the signal aborts. */
export const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export const joinUrl = (base: string, path: string) => base.replace(/\/+$/, '') + path;

/** The innermost error code or message of a fetch failure ("ECONNREFUSED", "other side closed"). */
export function describeCause(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, depth = 0; c && depth < 4; depth++) {
    const code = (c as { code?: unknown }).code;
    const msg = (c as { message?: unknown }).message;
    if (typeof code === 'string') parts.push(code);
    else if (typeof msg === 'string' && msg && !/^\[/.test(msg)) parts.push(msg);
    c = (c as { cause?: unknown }).cause;
  }
  return parts.at(-1) ?? 'unknown error';
}

export function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success)
    throw new ServiceError('VALIDATION', `Invalid request: ${z.prettifyError(r.error)}`, {
      fieldErrors: r.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
      sent: false,
    });
  return r.data;
}

/** Spec 4.1 multipart form: the same field names as JSON, values as text, files repeated. */
export function toFormData(fields: Record<string, unknown>, attachments: Attachment[]): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null) continue;
    if (k === 'h3_ids' && Array.isArray(v)) for (const cell of v) form.append(k, String(cell));
    else if (typeof v === 'object') form.append(k, JSON.stringify(v));
    else form.append(k, String(v));
  }
  for (const a of attachments)
    form.append(a.field, new Blob([a.content], { type: a.contentType ?? 'application/octet-stream' }), a.name);
  return form;
}

/** One HTTP request of the client; `redirect` is 'manual' wherever a key is sent. */
export type Init = { method: string; headers: Headers; body?: string | FormData; redirect: 'manual' | 'follow' };

/** A 3xx from a host that was sent a key: where it points, never followed. */
export function redirected(status: number, location: string | null, url: string): ServiceError {
  let where = 'another address';
  try {
    if (location) where = new URL(location, url).origin;
  } catch {
    // An unreadable Location still refuses the redirect.
  }
  return new ServiceError('HTTP', `The service answered HTTP ${status}, a redirect to ${where}; redirects are not followed, so keys go to the configured addresses only`, {
    status,
    url,
    sent: true,
  });
}

/** The whole body, or an error once it passes `max` bytes (the rest is not read). */
export async function readCapped(body: ReadableStream<Uint8Array>, max: number, status: number, url: string): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new ServiceError('HTTP', `The service sent more than ${Math.round(max / 2 ** 20)} MiB in one answer; it was not kept`, { status, url, sent: true });
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
