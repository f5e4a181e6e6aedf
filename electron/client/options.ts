import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import type { Logger } from '../ground/logger';
import type { KeyProvider } from './key-provider';

// What the service client is built with and hands back: options, timeouts, retries, exchanges.

export interface Attachment {
  field: 'files' | 'images';
  name: string;
  contentType?: string;
  content: Uint8Array;
}

export interface Timeouts {
  /** Compute waits for the written answer: minutes, not seconds. */
  compute: number;
  stream: number;
  search: number;
  media: number;
  /** Reachability probe (GET /health), on demand and while offline. */
  probe: number;
}

export interface RetryPolicy {
  /** Further attempts after the first (bounded). */
  max: number;
  /** Wait when a 429/503 carries no Retry-After, doubled per attempt. A refused connection is never retried. */
  baseDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error goes back to the caller. */
  maxDelayMs: number;
}

export interface Connectivity {
  online: boolean;
  base: boolean;
  search: boolean;
  message: string | null;
}

export interface ServiceClientOptions {
  /** The active connection, read at every call so a profile switch takes effect at once. */
  connection: () => ConnectionInfo;
  keys: KeyProvider;
  logger: Logger;
  fetch?: typeof globalThis.fetch;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  /** How often an unreachable service is probed again (ms); 0 disables the background probe. */
  probeIntervalMs?: number;
  onConnectivity?: (state: Connectivity) => void;
  /** Largest answer body read (bytes); a longer one fails with HTTP and is not kept. */
  maxResponseBytes?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** One completed exchange: the validated body, the body text exactly as received, and timings. */
export interface Exchange<T> {
  body: T;
  /** The body bytes exactly as received, and the same decoded as UTF-8 text. */
  bytes: Uint8Array;
  raw: string;
  status: number;
  /** The request as sent (JSON fields; attachments are listed by name only). */
  request: Record<string, unknown>;
  startedAt: number;
  finishedAt: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { compute: 10 * 60_000, stream: 120_000, search: 60_000, media: 60_000, probe: 5_000 };
/** Far above any real answer (a 10,000-feature compute is about 10 MB), far below running out of memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 2 ** 20;
export const DEFAULT_RETRY: RetryPolicy = { max: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

export type Host = 'base' | 'search';

/** Per-call options of the three operations. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The connection to send to instead of the active one (a rerun goes where its entry was made).
   * Reachability is tracked for the active connection only.
   */
  connection?: ConnectionInfo;
}
