import type { KeyKind, KeyTestResult } from '../../shared/rpc/methods/keys';

export type FetchFn = typeof fetch;

export interface KeyTestTarget {
  profileId: string;
  kind: KeyKind;
  baseUrl: string;
  searchBaseUrl: string;
}

const trimSlash = (s: string) => s.replace(/\/+$/, '');

/** The cheapest authenticated request of each host (spec 4.1 and 4.3, with spec 5's headers). */
export function testRequest(t: KeyTestTarget, key: string): { url: string; init: RequestInit } | null {
  const base = t.kind === 'bearer' ? t.baseUrl : t.searchBaseUrl;
  if (!base) return null;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (t.kind === 'bearer') headers['authorization'] = `Bearer ${key}`;
  else headers['x-api-key'] = key;
  const body =
    t.kind === 'bearer' ? { query: 'connection test', answer: false, limit: 1 } : { query: 'connection test', limit: 1 };
  return {
    url: `${trimSlash(base)}${t.kind === 'bearer' ? '/v1/compute' : '/search'}`,
    // No redirects: a redirect to another host would carry the key with it.
    init: { method: 'POST', headers, body: JSON.stringify(body), redirect: 'manual' },
  };
}

function causeOf(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'no answer in time';
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? 'unknown error';
}

/** Sends one request with the key and sorts the answer into ok / unauthorized / unreachable / http. */
export async function runKeyTest(
  t: KeyTestTarget,
  key: string | null,
  fetchFn: FetchFn,
  opts: { timeoutMs?: number; now?: () => number; noAddress?: string } = {},
): Promise<KeyTestResult> {
  const now = opts.now ?? (() => performance.now());
  const start = now();
  const result = (outcome: KeyTestResult['outcome'], message: string, httpStatus: number | null = null) => ({
    profileId: t.profileId,
    kind: t.kind,
    outcome,
    httpStatus,
    message,
    durationMs: Math.round(now() - start),
  });
  if (!key) return result('not_set', 'No key is set for this profile');
  const req = testRequest(t, key);
  if (!req) return result('unreachable', opts.noAddress ?? 'This profile has no address for this host');
  let res: Response;
  try {
    res = await fetchFn(req.url, { ...req.init, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) });
  } catch (e) {
    return result('unreachable', `Could not reach ${new URL(req.url).host}: ${causeOf(e)}`);
  }
  // The body is not needed; drop it so the connection is freed.
  await res.body?.cancel().catch(() => undefined);
  if (res.status >= 200 && res.status < 300) return result('ok', 'The key was accepted', res.status);
  // Auth comes before reading the question, so a refusal of the test question itself (422: the
  // question was not read) still says the key was accepted.
  if (res.status === 422) return result('ok', 'The key was accepted (the test question was not answered)', res.status);
  if (res.status === 401 || res.status === 403)
    return result('unauthorized', `The host refused the key (HTTP ${res.status})`, res.status);
  return result('http', `The host answered HTTP ${res.status}`, res.status);
}
