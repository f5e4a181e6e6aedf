// One class over one connection's two hosts: sending, reachability, retries, redirect and size
// limits share its state (the active connection, which host answered last), so it stays one file;
// options and wire shapes live beside it (options.ts, wire.ts).
import { createFetch, type $Fetch } from 'ofetch';
import { z } from 'zod';
import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import { ComputeRequest, ComputeResponse, type ComputeRequestInput } from '../../shared/service/compute';
import { StreamRequest, StreamResponse, type StreamRequestInput } from '../../shared/service/stream';
import { ImageryRequest, ImageryResponse } from '../../shared/service/imagery';
import { ServiceError, codeForStatus, describeErrorBody, isUnreachable, retryAfterMs } from './errors';
import type { KeyKind } from '../../shared/rpc/methods/keys';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  type Attachment,
  type CallOptions,
  type Connectivity,
  type Exchange,
  type Host,
  type RetryPolicy,
  type ServiceClientOptions,
  type Timeouts,
} from './options';
import { defaultSleep, describeCause, joinUrl, parseRequest, readCapped, redirected, toFormData, type Init } from './wire';

export * from './options';
export { toFormData };

/** Aborts a request whose host a probe found unreachable while it was pending. */
class HostGone extends Error {}

const utf8 = new TextDecoder();

/** One POST to the service: where it goes, with which key, what it carries, how its answer is checked. */
interface PostRequest<T> {
  host: Host;
  path: string;
  keyKind: KeyKind;
  json: Record<string, unknown>;
  /** The request as kept with the exchange (attachments by name only). */
  sent: Record<string, unknown>;
  attachments: Attachment[] | null;
  schema: z.ZodType<T>;
  timeoutMs: number;
}

/**
 * HTTP client of the query service (spec 4): compute and stream on the base URL with a Bearer
 * key, imagery search on the search URL with x-api-key. Retries only what cannot have run twice.
 */
export class ServiceClient {
  private readonly $fetch: $Fetch;
  private readonly timeouts: Timeouts;
  private readonly retry: RetryPolicy;
  private readonly maxResponseBytes: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private reachable: Record<Host, boolean> = { base: true, search: true };
  private lastMessage: string | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private urls = '';
  /** Requests pending per host of the active connection, failed at once when a probe finds it gone. */
  private readonly inflight: Record<Host, Set<AbortController>> = { base: new Set(), search: new Set() };

  constructor(private readonly opts: ServiceClientOptions) {
    this.$fetch = createFetch({ fetch: opts.fetch ?? globalThis.fetch });
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
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
    opts: CallOptions & { attachments?: Attachment[] } = {},
  ): Promise<Exchange<ComputeResponse>> {
    const request = parseRequest(ComputeRequest, input);
    const attachments = opts.attachments ?? [];
    const sent: Record<string, unknown> = { ...request };
    for (const field of ['files', 'images'] as const) {
      const names = attachments.filter((a) => a.field === field).map((a) => a.name);
      if (names.length) sent[field] = names;
    }
    return this.send(
      { host: 'base', path: '/v1/compute', keyKind: 'bearer', json: request, sent, attachments: attachments.length ? attachments : null, schema: ComputeResponse, timeoutMs: this.timeouts.compute },
      opts,
    );
  }

  async stream(input: StreamRequestInput, opts: CallOptions = {}): Promise<Exchange<StreamResponse>> {
    const request = parseRequest(StreamRequest, input);
    return this.send(
      { host: 'base', path: '/v1/stream', keyKind: 'bearer', json: request, sent: { ...request }, attachments: null, schema: StreamResponse, timeoutMs: this.timeouts.stream },
      opts,
    );
  }

  async imagerySearch(input: z.input<typeof ImageryRequest>, opts: CallOptions = {}): Promise<Exchange<ImageryResponse>> {
    const request = parseRequest(ImageryRequest, input);
    return this.send(
      { host: 'search', path: '/search', keyKind: 'search', json: request, sent: { ...request }, attachments: null, schema: ImageryResponse, timeoutMs: this.timeouts.search },
      opts,
    );
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
    // Third-party media (no key sent) may redirect to its CDN; the connection's own hosts may not.
    const redirect = host ? 'manual' : 'follow';
    const res = await this.exchange(host, target.toString(), { method: 'GET', headers, redirect }, this.timeouts.media, opts.signal);
    if (res.status >= 400) throw this.httpError(res.status, utf8.decode(res.bytes), res.contentType, target.toString());
    return { contentType: res.contentType ?? 'application/octet-stream', bytes: res.bytes };
  }

  /**
   * Checks both hosts of the active connection now with GET {url}/health, sending no key: the
   * bundled service answers it without one, and for a remote service any HTTP answer (even 401
   * or 404) proves the host is there, at no cost to a metered key. A refused connection, an
   * unknown host or no answer within the probe timeout counts as unreachable.
   */
  async probe(): Promise<Connectivity> {
    const conn = this.current();
    if (!conn.baseUrl && !conn.searchBaseUrl && conn.kind === 'local') {
      for (const host of ['base', 'search'] as const) this.mark(host, false, 'the bundled local service is not running');
      return this.connectivity();
    }
    await Promise.all((['base', 'search'] as const).map((host) => this.probeHost(host)));
    return this.connectivity();
  }

  private async probeHost(host: Host): Promise<boolean> {
    const conn = this.opts.connection();
    const base = host === 'base' ? conn.baseUrl : conn.searchBaseUrl;
    if (!base) return false;
    const url = joinUrl(base, '/health');
    const deadline = AbortSignal.timeout(this.timeouts.probe);
    let cause: unknown;
    // A GET cannot do harm twice: a socket the server closed while it idled is tried once more.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.$fetch.raw(url, { method: 'GET', retry: false, ignoreResponseError: true, responseType: 'text', signal: deadline });
        this.mark(host, true, null);
        return true;
      } catch (e) {
        cause = e;
        if (deadline.aborted || isUnreachable(e)) break;
      }
    }
    this.mark(host, false, `${new URL(url).origin} cannot be reached (${deadline.aborted ? 'no answer' : describeCause(cause)})`);
    return false;
  }

  // ---------------------------------------------------------------- internals

  private mark(host: Host, ok: boolean, message: string | null): void {
    if (this.reachable[host] === ok) return;
    this.reachable[host] = ok;
    this.lastMessage = ok ? (this.online ? null : this.lastMessage) : message;
    this.opts.logger.info(`Service ${host} host ${ok ? 'reachable again' : 'unreachable'}`, message ?? undefined);
    // Requests still waiting on a host that is gone would otherwise wait for their full timeout.
    if (!ok) for (const ac of this.inflight[host]) ac.abort(new HostGone(message ?? 'the service cannot be reached'));
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

  private async send<T>(req: PostRequest<T>, opts: CallOptions): Promise<Exchange<T>> {
    const active = this.current();
    const conn = opts.connection ?? active;
    // Another connection than the active one (a rerun of an older entry): nothing known about it.
    const tracked = conn !== active && `${conn.baseUrl} ${conn.searchBaseUrl}` !== this.urls ? null : req.host;
    return this.sendTo(req, tracked, conn, opts.signal);
  }

  /** tracked: the host whose reachability this request reports (null: not the active connection). */
  private async sendTo<T>(req: PostRequest<T>, tracked: Host | null, conn: ConnectionInfo, signal: AbortSignal | undefined): Promise<Exchange<T>> {
    const { host, path, keyKind, json, sent, attachments, schema, timeoutMs } = req;
    if (tracked && !this.reachable[tracked])
      throw new ServiceError('OFFLINE', `Offline: ${this.lastMessage ?? 'the service cannot be reached'}`, { sent: false });
    const base = host === 'base' ? conn.baseUrl : conn.searchBaseUrl;
    // The bundled service has no address while it is not running: that is being offline.
    if (!base && conn.kind === 'local') {
      const message = 'the bundled local service is not running';
      if (tracked) this.mark(tracked, false, message);
      throw new ServiceError('OFFLINE', `Offline: ${message}`, { sent: false });
    }
    if (!base) throw new ServiceError('NETWORK', `The connection "${conn.label}" has no ${host === 'base' ? 'service' : 'search'} URL`);
    const url = joinUrl(base, path);
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
    const res = await this.exchange(tracked, url, { method: 'POST', headers, body, redirect: 'manual' }, timeoutMs, signal);
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
    const { message, fieldErrors, refusal } = describeErrorBody(raw, contentType);
    const what = message ? `: ${message}` : '';
    return new ServiceError(codeForStatus(status), `The service answered HTTP ${status}${what}`, {
      status,
      ...(message ? { serverMessage: message } : {}),
      fieldErrors,
      ...(refusal ? { refusal } : {}),
      body: raw,
      url,
      sent: true,
    });
  }

  /**
   * One logical request with bounded retries: 429/503 (the service declined to run it) are
   * retried, honouring Retry-After. A refused connection fails at once as OFFLINE: nobody is
   * listening, and waiting would only delay the answer. Anything that may have reached the
   * service is never repeated. A probe that finds the host gone fails the request at once.
   */
  private async exchange(
    host: Host | null,
    url: string,
    init: Init,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; contentType: string | null; bytes: Uint8Array }> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const gone = new AbortController();
    const combined = AbortSignal.any([deadline, gone.signal, ...(signal ? [signal] : [])]);
    if (host) this.inflight[host].add(gone);
    try {
      return await this.attempts(host, url, init, timeoutMs, signal, deadline, gone.signal, combined);
    } finally {
      if (host) this.inflight[host].delete(gone);
    }
  }

  private async attempts(
    host: Host | null,
    url: string,
    init: Init,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    deadline: AbortSignal,
    gone: AbortSignal,
    combined: AbortSignal,
  ): Promise<{ status: number; contentType: string | null; bytes: Uint8Array }> {
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new ServiceError('CANCELLED', 'The request was cancelled');
      try {
        const res = await this.$fetch.raw(url, {
          method: init.method,
          headers: init.headers,
          ...(init.body !== undefined ? { body: init.body } : {}),
          // Keys are sent to the configured hosts only: a redirect elsewhere is an error, not followed.
          redirect: init.redirect,
          retry: false,
          ignoreResponseError: true,
          // A stream, read here with a size cap: a hostile or broken server cannot fill the memory.
          responseType: 'stream',
          signal: combined,
        });
        if (host) this.mark(host, true, null);
        const contentType = res.headers.get('content-type');
        const body = res._data as ReadableStream<Uint8Array> | null | undefined;
        if ((res.status === 429 || res.status === 503) && attempt < this.retry.max) {
          const wait = retryAfterMs(res.headers.get('retry-after'), this.now()) ?? this.retry.baseDelayMs * 2 ** attempt;
          if (wait <= this.retry.maxDelayMs) {
            await body?.cancel().catch(() => undefined);
            this.opts.logger.info(`HTTP ${res.status} from ${url}; retrying in ${wait} ms`);
            await this.wait(wait, combined, signal, timeoutMs, gone);
            continue;
          }
        }
        if (res.status >= 300 && res.status < 400) {
          await body?.cancel().catch(() => undefined);
          throw redirected(res.status, res.headers.get('location'), url);
        }
        // Bytes, not text: the cache keeps the body exactly as it came off the wire.
        const bytes = body ? await readCapped(body, this.maxResponseBytes, res.status, url) : new Uint8Array(0);
        return { status: res.status, contentType, bytes };
      } catch (e) {
        if (e instanceof ServiceError) throw e;
        if (signal?.aborted) throw new ServiceError('CANCELLED', 'The request was cancelled');
        if (gone.aborted)
          throw new ServiceError('OFFLINE', `Offline: the service stopped answering during the request (${(gone.reason as Error).message})`, {
            url,
            sent: true,
          });
        if (deadline.aborted) throw new ServiceError('TIMEOUT', `No answer from the service within ${Math.round(timeoutMs / 1000)} s`, { url });
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

  private async wait(ms: number, combined: AbortSignal, signal: AbortSignal | undefined, timeoutMs: number, gone: AbortSignal) {
    try {
      await this.sleep(ms, combined);
    } catch {
      if (signal?.aborted) throw new ServiceError('CANCELLED', 'The request was cancelled');
      if (gone.aborted) throw new ServiceError('OFFLINE', `Offline: ${(gone.reason as Error).message}`, { sent: false });
      throw new ServiceError('TIMEOUT', `No answer from the service within ${Math.round(timeoutMs / 1000)} s`);
    }
  }
}
