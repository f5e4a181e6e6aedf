import { z } from 'zod';

/** The one error-code enum every RPC failure uses. */
export const ErrorCode = z.enum([
  'VALIDATION',
  'AUTH',
  'NOT_FOUND',
  'NETWORK',
  'TIMEOUT',
  'HTTP',
  'OFFLINE',
  'CANCELLED',
  'KEYCHAIN',
  'CONFLICT',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const RpcErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.unknown().optional(),
});
export type RpcErrorBody = z.infer<typeof RpcErrorBody>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: RpcErrorBody };

export const ResultEnvelope = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: RpcErrorBody }),
]);

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const err = (code: ErrorCode, message: string, details?: unknown): Result<never> => ({
  ok: false,
  error: details === undefined ? { code, message } : { code, message, details },
});

/** Thrown by Node-side handlers to choose the envelope's code; never crosses a transport. */
export class RpcError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}
