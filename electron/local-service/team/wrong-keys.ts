import type { Logger } from '../../ground/logger';
import { createRateLimiter } from './rate-limit';

/**
 * Wrong keys per client address: `perMinute` of them are checked in full (a token bucket, a
 * minute's burst); past that the address is held, and until a token is back a key from it is
 * only compared with keys already known to pass (no scrypt). A right key is served all along,
 * from the same address too: on loopback every client shares 127.0.0.1, and another local
 * process guessing must not lock the app out.
 */
export interface WrongKeys {
  /** 0 when keys from `address` are checked in full, else seconds until they are (Retry-After). */
  held(address: string): number;
  /** A wrong key came from `address`: counted, and logged at most once a minute per address. */
  failed(address: string): void;
}

const LOG_EVERY_MS = 60_000;
/** Addresses whose log line is due are forgotten past this many, so a spray of addresses cannot grow the map without end. */
const PRUNE_ABOVE = 10_000;

export function createWrongKeys(opts: { perMinute: number; logger: Logger; now?: () => number }): WrongKeys {
  const now = opts.now ?? Date.now;
  const bucket = createRateLimiter(opts.perMinute, now);
  // Failures since the address's last log line; the first wrong key of an address is logged at once.
  const logged = new Map<string, { at: number; since: number }>();
  return {
    held: (address) => bucket.peek(address),
    failed(address) {
      const t = now();
      bucket.take(address);
      let e = logged.get(address);
      if (!e) {
        if (logged.size >= PRUNE_ABOVE) for (const [a, o] of logged) if (t - o.at >= LOG_EVERY_MS) logged.delete(a);
        logged.set(address, (e = { at: -Infinity, since: 0 }));
      }
      e.since++;
      if (t - e.at < LOG_EVERY_MS) return;
      // Never the key itself: the address, how many, and whether it is held now.
      opts.logger.warn('local service: wrong keys', { address, failures: e.since, held_s: bucket.peek(address) });
      e.at = t;
      e.since = 0;
    },
  };
}
