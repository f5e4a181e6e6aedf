import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { PROBLEM_CONTENT_TYPE, type Problem } from '../../../shared/service/problem';

export type FieldError = { field: string; message: string };

/** Field errors from a zod failure, with dotted paths ("coordinates.0.latitude"). */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
}

/** Every error of the bundled service: RFC 9457 problem+json, optionally with field errors. */
export function sendProblem(
  reply: FastifyReply,
  status: number,
  title: string,
  detail?: string,
  errors?: FieldError[],
  /** Extension members (RFC 9457 section 3.2), such as a machine-readable `code`. */
  extra?: Record<string, unknown>,
): FastifyReply {
  const body: Problem = { type: 'about:blank', title, status, ...extra };
  if (detail) body.detail = detail;
  if (errors?.length) body.errors = errors;
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(body);
}
