import type { FastifyRequest } from 'fastify';

/**
 * How a request body that stalls is told apart: fewer than `minBytes` arrived in the last
 * `windowMs` while the body is not complete (a client that stopped sending, or trickles). Such a
 * body is cut with 408 and its connection closed.
 */
export interface StallLimits {
  windowMs: number;
  minBytes: number;
}

/** 1 MiB per 30 s (about 34 KiB/s): a client that sends nothing for 30 s, or trickles, is cut. */
export const DEFAULT_STALL: StallLimits = { windowMs: 30_000, minBytes: 1024 * 1024 };

/** How long an answer sent before its request's body ended lets the client go on sending (read and dropped) before the socket goes. */
const LINGER_MS = 2000;
const CHUNKED_LINGER_MS = 500;

/** The detail of a 408 for a stalled body. */
export function stalledDetail(limits: StallLimits): string {
  const kib = limits.minBytes / 1024;
  return `The request body arrived too slowly: less than ${kib >= 1024 ? `${kib / 1024} MiB` : `${Math.round(kib)} KiB`} in ${limits.windowMs / 1000} s.`;
}

/** Whether the request says it has a body (chunked, or a length above 0). */
export function hasBody(req: FastifyRequest): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Calls `stalled` once when the request's body stalls (see StallLimits). Progress is read from
 * the socket's byte count, so the watch takes no part in how the body is read. Returns stop();
 * the watch also ends by itself once the body is complete or the socket is gone.
 */
export function watchStall(req: FastifyRequest, limits: StallLimits, stalled: () => void): () => void {
  const socket = req.raw.socket;
  // Ten samples a window: a stall is seen within a tenth of the window after it is one.
  const steps = 10;
  const samples = [socket.bytesRead];
  const timer = setInterval(() => {
    if (req.raw.complete || socket.destroyed) return stop();
    samples.push(socket.bytesRead);
    if (samples.length <= steps) return;
    samples.shift();
    if (samples[samples.length - 1]! - samples[0]! >= limits.minBytes) return;
    stop();
    stalled();
  }, limits.windowMs / steps);
  timer.unref();
  const stop = () => clearInterval(timer);
  return stop;
}

/**
 * For an answer sent before its request's body was read to the end (a refusal, a limit, a
 * stall): the connection closes rather than reading the rest of the body to reuse it. Node
 * destroys a `connection: close` socket once the answer is written, and with body bytes still
 * arriving that resets the connection, which can make a client that reads only once it has sent
 * everything (fetch) lose the answer (RFC 9112, section 9.6). So our side ends, and what the
 * client still sends of a body of declared length is read and dropped until it ends, for at
 * most LINGER_MS; a chunked body, which may never end, is not read further, and its socket goes
 * after CHUNKED_LINGER_MS, time for the answer to leave.
 */
export function closeIfBodyLeft(req: FastifyRequest, setHeader: (name: string, value: string) => void): void {
  if (req.raw.complete || !hasBody(req)) return;
  setHeader('connection', 'close');
  const socket = req.raw.socket;
  Object.assign(socket, { destroySoon: () => socket.end() });
  const chunked = req.headers['content-length'] === undefined;
  if (chunked) req.raw.pause();
  else req.raw.resume();
  setTimeout(() => socket.destroy(), chunked ? CHUNKED_LINGER_MS : LINGER_MS).unref();
}
