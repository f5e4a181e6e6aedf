import { z } from 'zod';

/**
 * Error bodies are not shown by the spec. The bundled service answers RFC 9457
 * problem+json with a list of field errors; clients accept any body shape.
 */
export const FieldError = z.object({ field: z.string(), message: z.string() });
export const Problem = z
  .object({
    type: z.string().default('about:blank'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(FieldError).optional(),
  })
  .loose();
export type Problem = z.infer<typeof Problem>;
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
