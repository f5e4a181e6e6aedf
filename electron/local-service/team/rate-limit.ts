/**
 * Requests per key: a token bucket per key id, `perMinute` tokens refilled evenly and as many
 * held at most (a burst of one minute's allowance). take() says how long to wait when empty.
 */
export interface RateLimiter {
  /** 0 when the request may go ahead, else seconds until a token is back (for Retry-After). */
  take(keyId: string): number;
  /** What take() would answer, without taking a token. */
  peek(keyId: string): number;
}

/** Buckets kept before full ones (nothing owed) are forgotten, so many keys or addresses cannot grow the map without end. */
const PRUNE_ABOVE = 10_000;

export function createRateLimiter(perMinute: number, now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = perMinute / 60_000;
  const refilled = (keyId: string, t: number) => {
    const b = buckets.get(keyId) ?? { tokens: perMinute, at: t };
    b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * perMs);
    b.at = t;
    return b;
  };
  const wait = (tokens: number) => (tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)));
  return {
    take(keyId) {
      const t = now();
      const b = refilled(keyId, t);
      if (!buckets.has(keyId) && buckets.size >= PRUNE_ABOVE)
        for (const [k, o] of buckets) if (o.tokens + (t - o.at) * perMs >= perMinute) buckets.delete(k);
      buckets.set(keyId, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return wait(b.tokens);
    },
    peek(keyId) {
      const b = buckets.get(keyId);
      return b ? wait(Math.min(perMinute, b.tokens + (now() - b.at) * perMs)) : 0;
    },
  };
}
