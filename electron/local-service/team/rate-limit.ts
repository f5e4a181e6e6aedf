/**
 * Requests per key: a token bucket per key id, `perMinute` tokens refilled evenly and as many
 * held at most (a burst of one minute's allowance). take() says how long to wait when empty.
 */
export interface RateLimiter {
  /** 0 when the request may go ahead, else seconds until a token is back (for Retry-After). */
  take(keyId: string): number;
}

export function createRateLimiter(perMinute: number, now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = perMinute / 60_000;
  return {
    take(keyId) {
      const t = now();
      const b = buckets.get(keyId) ?? { tokens: perMinute, at: t };
      b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * perMs);
      b.at = t;
      buckets.set(keyId, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
    },
  };
}
