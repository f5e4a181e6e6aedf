import { createFetch, type $Fetch } from 'ofetch';
import { z } from 'zod';
import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import { ComputeRequest, ComputeResponse, type ComputeRequestInput } from '../../shared/service/compute';
import { StreamRequest, StreamResponse, type StreamRequestInput } from '../../shared/service/stream';
import { ImageryRequest, ImageryResponse } from '../../shared/service/imagery';
import type { KeyKind } from '../../shared/rpc/methods/keys';
import {
  ServiceError,
  codeForStatus,
  describeErrorBody,
  isRefused,
  isUnreachable,
  retryAfterMs,
} from './errors';
import {
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  type Attachment,
  type Connectivity,
  type Exchange,
  type RetryPolicy,
  type ServiceClientOptions,
  type Timeouts,
} from './options';
import { defaultSleep, describeCause, join, parseRequest, toFormData, utf8 } from './wire';

export * from './options';
export { toFormData } from './wire';

type Host = 'base' | 'search';

/**
 * HTTP client of the query service (spec 4): compute and stream on the base URL with a Bearer
 * key, imagery search on the search URL with x-api-key. Retries only what cannot have run twice.
 */
export class ServiceClient {
  private readonly $fetch: $Fetch;
  private readonly timeouts: Timeouts;
  private readonly retry: RetryPolicy;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private reachable: Record<Host, boolean> = { base: true, search: true };
  private lastMessage: string | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private urls = '';

  constructor(private readonly opts: ServiceClientOptions) {
    this.$fetch = createFetch({ fetch: opts.fetch ?? globalThis.fetch });
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? defaultSleep;
  }

  get online(): boolean {
    return this.reachable.base && this.reachable.search;
  }

  connectivity(): Connectivity {
    return { online: this.online, base: this.reachable.base, search: this.reachable.search, message: this.lastMessage };
  }

  dispose(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = null;
  }

  // ---------------------------------------------------------------- operations

  async compute(
    input: ComputeRequestInput,
    opts: { attachments?: Attachment[]; signal?: AbortSignal } = {},
  ): Promise<Exchange<ComputeResponse>> {
    const request = parseRequest(ComputeRequest, input);
    const attachments = opts.attachments ?? [];
    const sent: Record<string, unknown> = { ...request };
    for (const field of ['files', 'images'] as const) {
      const names = attachments.filter((a) => a.field === field).map((a) => a.name);
      if (names.length) sent[field] = names;
    }
    return this.send('base', '/v1/compute', 'bearer', request, sent, attachments.length ? attachments : null, ComputeResponse, this.timeouts.compute, opts.signal);
  }

  async stream(input: StreamRequestInput, opts: { signal?: AbortSignal } = {}): Promise<Exchange<StreamResponse>> {
    const request = parseRequest(StreamRequest, input);
    return this.send('base', '/v1/stream', 'bearer', request, { ...request }, null, StreamResponse, this.timeouts.stream, opts.signal);
  }

  async imagerySearch(
    input: z.input<typeof ImageryRequest>,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Exchange<ImageryResponse>> {
    const request = parseRequest(ImageryRequest, input);
    return this.send('search', '/search', 'search', request, { ...request }, null, ImageryResponse, this.timeouts.search, opts.signal);
  }

  /**
   * Image bytes for offline review. Keys are sent only to the connection's own hosts, never to
   * third-party media servers.
   */
  async fetchMedia(url: string, opts: { signal?: AbortSignal } = {}): Promise<{ contentType: string; bytes: Uint8Array }> {
    const conn = this.opts.connection();
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new ServiceError('VALIDATION', `Not a media URL: ${url}`);
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new ServiceError('VALIDATION', `Unsupported media URL scheme: ${target.protocol}`);
    const origin = (u: string) => {
      try {
        return new URL(u).origin;
      } catch {
        return null;
      }
    };
    const host: Host | null =
      target.origin === origin(conn.baseUrl) ? 'base' : target.origin === origin(conn.searchBaseUrl) ? 'search' : null;
    const headers = new Headers({ accept: 'image/*,video/*,*/*' });
    if (host) await this.authorize(headers, conn.profileId, host === 'base' ? 'bearer' : 'search');
    const res = await this.exchange(host, target.toString(), { method: 'GET', headers }, this.timeouts.media, opts.signal);
    if (res.status >= 400) throw this.httpError(res.status, utf8.decode(res.bytes), res.contentType, target.toString());
    return { contentType: res.contentType ?? 'application/octet-stream', bytes: res.bytes };
  }

  /** Checks both hosts now; any HTTP answer (even an error status) counts as reachable. */
  async probe(): Promise<Connectivity> {
    await Promise.all((['base', 'search'] as const).map((host) => this.probeHost(host)));
    return this.connectivity();
  }

  private async probeHost(host: Host): Promise<boolean> {
    const conn = this.opts.connection();
    const url = host === 'base' ? conn.baseUrl : conn.searchBaseUrl;
    if (!url) return false;
    try {
      await this.$fetch.raw(url, {
        method: 'GET',
        retry: false,
        ignoreResponseError: true,
        responseType: 'text',
        signal: AbortSignal.timeout(this.timeouts.probe),
      });
      this.mark(host, true, null);
      return true;
    } catch (e) {
      this.mark(host, false, `${url} cannot be reached (${describeCause(e)})`);
      return false;
    }
  }

  // ---------------------------------------------------------------- internals

  private mark(host: Host, ok: boolean, message: string | null): void {
    if (this.reachable[host] === ok) return;
    this.reachable[host] = ok;
    this.lastMessage = ok ? (this.online ? null : this.lastMessage) : message;
    this.opts.logger.info(`Service ${host} host ${ok ? 'reachable again' : 'unreachable'}`, message ?? undefined);
    if (!this.online && this.opts.probeIntervalMs !== 0 && !this.probeTimer) {
      this.probeTimer = setInterval(() => void this.probe(), this.opts.probeIntervalMs ?? 15_000);
      this.probeTimer.unref();
    }
    if (this.online) this.dispose();
    this.opts.onConnectivity?.(this.connectivity());
  }

  private async authorize(headers: Headers, profileId: string, kind: KeyKind): Promise<void> {
    let key: string | null;
    try {
      key = await this.opts.keys.getKey(profileId, kind);
    } catch (e) {
      throw new ServiceError('KEYCHAIN', `The API key could not be read from the keychain: ${(e as Error).message}`);
    }
    // No stored key: send none and let the service answer (the bundled one may not need one).
    if (!key) return;
    if (kind === 'bearer') headers.set('authorization', `Bearer ${key}`);
    else headers.set('x-api-key', key);
  }

  /** The active connection; a switch to other URLs forgets what was known about the old ones. */
  private current(): ConnectionInfo {
    const conn = this.opts.connection();
    const urls = `${conn.baseUrl} ${conn.searchBaseUrl}`;
    if (urls !== this.urls) {
      this.urls = urls;
      if (!this.online) {
        this.reachable = { base: true, search: true };
        this.lastMessage = null;
        this.dispose();
        this.opts.onConnectivity?.(this.connectivity());
      }
    }
    return conn;
  }

  private async send<T>(
    host: Host,
    path: string,
    keyKind: KeyKind,
    json: Record<string, unknown>,
    sent: Record<string, unknown>,
    attachments: Attachment[] | null,
    schema: z.ZodType<T>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Exchange<T>> {
    const conn = this.current();
    if (!this.reachable[host])
      throw new ServiceError('OFFLINE', `Offline: ${this.lastMessage ?? 'the service cannot be reached'}`, { sent: false });
    const base = host === 'base' ? conn.baseUrl : conn.searchBaseUrl;
    // The bundled service has no address while it is not running: that is being offline.
    if (!base && conn.kind === 'local') {
      const message = 'the bundled local service is not running';
      this.mark(host, false, message);
      throw new ServiceError('OFFLINE', `Offline: ${message}`, { sent: false });
    }
    if (!base) throw new ServiceError('NETWORK', `The connection "${conn.label}" has no ${host === 'base' ? 'service' : 'search'} URL`);
    const url = join(base, path);
    const headers = new Headers({ accept: 'application/json' });
    await this.authorize(headers, conn.profileId, keyKind);
    let body: string | FormData;
    if (attachments) {
      body = toFormData(json, attachments);
    } else {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(json);
    }
    const startedAt = this.now();
    const res = await this.exchange(host, url, { method: 'POST', headers, body }, timeoutMs, signal);
    const raw = utf8.decode(res.bytes);
    if (res.status >= 400) throw this.httpError(res.status, raw, res.contentType, url);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ServiceError('HTTP', `The service sent a malformed response (HTTP ${res.status}, not JSON)`, {
        status: res.status,
        body: raw,
        url,
        sent: true,
      });
    }
    const checked = schema.safeParse(parsed);
    if (!checked.success)
      throw new ServiceError('HTTP', `The service sent a response outside the interface: ${z.prettifyError(checked.error)}`, {
        status: res.status,
        body: raw,
        url,
        sent: true,
      });
    return { body: checked.data, bytes: res.bytes, raw, status: res.status, request: sent, startedAt, finishedAt: this.now() };
  }

  private httpError(status: number, raw: string, contentType: string | null, url: string): ServiceError {
    const { message, fieldErrors } = describeErrorBody(raw, contentType);
    const what = message ? `: ${message}` : '';
    return new ServiceError(codeForStatus(status), `The service answered HTTP ${status}${what}`, {
      status,
      ...(message ? { serverMessage: message } : {}),
      fieldErrors,
      body: raw,
      url,
      sent: true,
    });
  }

  /**
   * One logical request with bounded retries: a refused connection (nothing was sent) and
   * 429/503 (the service declined to run it) are retried, honouring Retry-After. Anything that
   * may have reached the service is never repeated.
   */
  private async exchange(
    host: Host | null,
    url: string,
    init: { method: string; headers: Headers; body?: string | FormData },
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; contentType: string | null; bytes: Uint8Array }> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new ServiceError('CANCELLED', 'The request was cancelled');
      try {
        const res = await this.$fetch.raw(url, {
          method: init.method,
          headers: init.headers,
          ...(init.body !== undefined ? { body: init.body } : {}),
          retry: false,
          ignoreResponseError: true,
          // Bytes, not text: the cache keeps the body exactly as it came off the wire.
          responseType: 'arrayBuffer',
          signal: combined,
        });
        if (host) this.mark(host, true, null);
        const contentType = res.headers.get('content-type');
        const data = res._data as ArrayBuffer | undefined;
        if ((res.status === 429 || res.status === 503) && attempt < this.retry.max) {
          const wait = retryAfterMs(res.headers.get('retry-after'), this.now()) ?? this.retry.baseDelayMs * 2 ** attempt;
          if (wait <= this.retry.maxDelayMs) {
            this.opts.logger.info(`HTTP ${res.status} from ${url}; retrying in ${wait} ms`);
            await this.wait(wait, combined, signal, timeoutMs);
            continue;
          }
        }
        return { status: res.status, contentType, bytes: data ? new Uint8Array(data) : new Uint8Array(0) };
      } catch (e) {
        if (e instanceof ServiceError) throw e;
        if (signal?.aborted) throw new ServiceError('CANCELLED', 'The request was cancelled');
        if (deadline.aborted) throw new ServiceError('TIMEOUT', `No answer from the service within ${Math.round(timeoutMs / 1000)} s`, { url });
        if (isRefused(e) && attempt < this.retry.max) {
          await this.wait(this.retry.baseDelayMs * 2 ** attempt, combined, signal, timeoutMs);
          continue;
        }
        if (isUnreachable(e)) {
          const message = `${new URL(url).origin} cannot be reached (${describeCause(e)})`;
          if (host) this.mark(host, false, message);
          throw new ServiceError('OFFLINE', `Offline: ${message}`, { url, sent: false });
        }
        // The connection broke after the request may have gone out: never repeated. Whether the
        // service is still there decides between a network hiccup and going offline.
        const cause = describeCause(e);
        if (host && !(await this.probeHost(host)))
          throw new ServiceError('OFFLINE', `Offline: the service went away during the request (${cause})`, { url, sent: true });
        throw new ServiceError('NETWORK', `The connection to the service failed during the request (${cause})`, {
          url,
          sent: true,
        });
      }
    }
  }

  private async wait(ms: number, combined: AbortSignal, signal: AbortSignal | undefined, timeoutMs: number) {
    try {
      await this.sleep(ms, combined);
    } catch {
      if (signal?.aborted) throw new ServiceError('CANCELLED', 'The request was cancelled');
      throw new ServiceError('TIMEOUT', `No answer from the service within ${Math.round(timeoutMs / 1000)} s`);
    }
  }
}
