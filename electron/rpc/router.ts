import { z } from 'zod';
import {
  isMethodName,
  methods,
  type MethodName,
  type MethodOutput,
  type MethodParsedInput,
} from '../../shared/rpc/contract';
import { RpcError, err, ok, type Result } from '../../shared/rpc/errors';
import type { Logger } from '../ground/logger';
import { MAX_NESTING, valueTooDeep } from '../ground/nesting';

/** Who is calling: used by handlers that stream events back to one caller (exports, jobs). */
export interface CallContext {
  transport: 'electron' | 'ws' | 'memory';
  signal?: AbortSignal;
}

export type Handler<M extends MethodName> = (
  input: MethodParsedInput<M>,
  ctx: CallContext,
) => Promise<MethodOutput<M>> | MethodOutput<M>;

export type Handlers = { [M in MethodName]: Handler<M> };

export interface Router {
  dispatch(method: unknown, rawInput: unknown, ctx?: CallContext): Promise<Result<unknown>>;
}

function issuesOf(e: z.ZodError) {
  return e.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

/**
 * The single entry point of every transport: validates the method name and input, runs the
 * handler, validates its output, and always resolves to a Result envelope. Stacks stay in the log.
 */
export function createRouter(handlers: Handlers, logger: Logger): Router {
  return {
    async dispatch(method, rawInput, ctx = { transport: 'memory' }) {
      // Only a string is quoted: String() of an object can throw ({ toString: 1 }) or run its code.
      if (!isMethodName(method))
        return err('NOT_FOUND', `Unknown method: ${typeof method === 'string' ? method : `(${method === null ? 'null' : typeof method})`}`);
      const spec = methods[method];
      // Every transport serialises recursively: a value nested thousands deep would throw there.
      if (valueTooDeep(rawInput))
        return err('VALIDATION', `Invalid input for ${method}: nested deeper than ${MAX_NESTING} levels`);
      const input = spec.input.safeParse(rawInput ?? {});
      if (!input.success)
        return err('VALIDATION', `Invalid input for ${method}: ${z.prettifyError(input.error)}`, {
          issues: issuesOf(input.error),
        });
      try {
        const handler = handlers[method] as Handler<typeof method>;
        const value = await handler(input.data as never, ctx);
        // A method may name a lighter check for what another boundary already validated.
        const output = ('outputCheck' in spec ? spec.outputCheck : spec.output).safeParse(value);
        if (!output.success) {
          logger.error(`Handler for ${method} returned output outside the contract`, issuesOf(output.error));
          return err('INTERNAL', `Internal error in ${method}`);
        }
        if (valueTooDeep(output.data)) {
          logger.error(`Handler for ${method} returned a value nested deeper than ${MAX_NESTING} levels`);
          return err('INTERNAL', `Internal error in ${method}: its answer is nested deeper than ${MAX_NESTING} levels`);
        }
        return ok(output.data);
      } catch (e) {
        if (e instanceof RpcError) return err(e.code, e.message, e.details);
        logger.error(`Handler for ${method} failed`, e);
        return err('INTERNAL', `Internal error in ${method}: ${(e as Error)?.message ?? 'unknown'}`);
      }
    },
  };
}
