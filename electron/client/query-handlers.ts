import { RpcError } from '../../shared/rpc/errors';
import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import type { Attachment as RpcAttachment } from '../../shared/rpc/methods/compute';
import type { ComputeRequestInput } from '../../shared/service/compute';
import type { StreamRequestInput } from '../../shared/service/stream';
import type { ImageryRequest } from '../../shared/service/imagery';
import type { Cache, QueryKind, QueryMeta } from '../cache';
import type { Logger } from '../core/logger';
import type { Handlers } from '../rpc/router';
import { ServiceError } from './errors';
import type { Attachment, Exchange, ServiceClient } from './service-client';

export interface QueryHandlerDeps {
  client: ServiceClient;
  cache: Cache;
  connection: () => ConnectionInfo;
  logger: Logger;
  now?: () => number;
}

type QueryMethods =
  | 'compute.run'
  | 'compute.cancel'
  | 'stream.run'
  | 'imagery.search'
  | 'history.list'
  | 'history.get'
  | 'history.thread'
  | 'history.rerun'
  | 'history.delete'
  | 'cache.stats'
  | 'cache.vacuum'
  | 'media.get';

/** Media larger than this is served but not kept (a cache of images, not of videos). */
const MAX_CACHED_MEDIA = 25 * 1024 * 1024;

const decode = (list: RpcAttachment[] | undefined): Attachment[] =>
  (list ?? []).map((a) => ({
    field: a.field,
    name: a.name,
    content: Buffer.from(a.dataBase64, 'base64'),
    ...(a.contentType ? { contentType: a.contentType } : {}),
  }));

/**
 * RPC handlers for running queries and reviewing them offline. Every run goes through the
 * service client and lands in the cache (answers and errors alike); reads use the cache only.
 */
export function createQueryHandlers(deps: QueryHandlerDeps): Pick<Handlers, QueryMethods> {
  const { client, cache } = deps;
  const now = deps.now ?? Date.now;
  const pending = new Map<string, AbortController>();

  /** The call's own signal (transport) joined with a cancel handle under the caller's runId. */
  async function cancellable<T>(runId: string | undefined, signal: AbortSignal | undefined, fn: (s?: AbortSignal) => Promise<T>) {
    if (!runId) return fn(signal);
    if (pending.has(runId)) throw new RpcError('CONFLICT', `A run with id ${runId} is already pending`);
    const ac = new AbortController();
    pending.set(runId, ac);
    try {
      return await fn(signal ? AbortSignal.any([signal, ac.signal]) : ac.signal);
    } finally {
      pending.delete(runId);
    }
  }

  async function run(
    kind: QueryKind,
    request: Record<string, unknown>,
    attachments: Attachment[],
    signal: AbortSignal | undefined,
    rerunOf?: number,
  ): Promise<{ queryId: number; response: unknown }> {
    const profileId = deps.connection().profileId;
    const startedAt = now();
    const meta = (ex?: Exchange<unknown>): QueryMeta => ({
      profileId,
      request: ex?.request ?? request,
      startedAt: ex?.startedAt ?? startedAt,
      finishedAt: ex?.finishedAt ?? now(),
      ...(rerunOf !== undefined ? { rerunOf } : {}),
      ...(attachments.length ? { uploads: attachments } : {}),
    });
    try {
      if (kind === 'compute') {
        const ex = await client.compute(request as ComputeRequestInput, { attachments, ...(signal ? { signal } : {}) });
        return { queryId: cache.storeCompute(meta(ex), ex.body, ex.raw), response: ex.body };
      }
      if (kind === 'stream') {
        const ex = await client.stream(request as StreamRequestInput, signal ? { signal } : {});
        return { queryId: cache.storeStream(meta(ex), ex.body, ex.raw), response: ex.body };
      }
      const ex = await client.imagerySearch(request as ImageryRequest, signal ? { signal } : {});
      return { queryId: cache.storeImagery(meta(ex), ex.body, ex.raw), response: ex.body };
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      // A request that reached (or may have reached) the service is part of the history.
      if (e.info.sent !== false && e.code !== 'CANCELLED') {
        const stored = { code: e.code, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}) };
        cache.storeError(kind, meta(), stored, e.info.body ?? null);
      }
      throw new RpcError(e.code, e.message, e.details());
    }
  }

  const mustGet = (id: number) => {
    const rec = cache.get(id);
    if (!rec) throw new RpcError('NOT_FOUND', `No cached query with id ${id}`);
    return rec;
  };

  return {
    'compute.run': async (input, ctx) =>
      (await cancellable(input.runId, ctx.signal, (s) => run('compute', input.request, decode(input.attachments), s))) as never,
    'stream.run': async (input, ctx) =>
      (await cancellable(input.runId, ctx.signal, (s) => run('stream', input.request, [], s))) as never,
    'imagery.search': async (input, ctx) =>
      (await cancellable(input.runId, ctx.signal, (s) => run('imagery', input.request, [], s))) as never,
    'compute.cancel': (input) => {
      const ac = pending.get(input.runId);
      ac?.abort();
      return { cancelled: ac !== undefined };
    },

    'history.list': (input) => cache.list(input),
    'history.get': (input) => mustGet(input.id),
    'history.thread': (input) => {
      mustGet(input.id);
      return { nodes: cache.thread(input.id) };
    },
    'history.rerun': async (input, ctx) => {
      const rec = mustGet(input.id);
      const request = { ...(rec.request as Record<string, unknown>) };
      // Attachment names are recorded in the request; the bytes come from the uploads table.
      delete request['files'];
      delete request['images'];
      const { queryId } = await run(rec.kind, request, cache.uploadsOf(rec.id), ctx.signal, rec.id);
      return { previousId: rec.id, queryId, diff: cache.diff(rec.id, queryId) };
    },
    'history.delete': (input) => ({ deleted: cache.delete(input.id) }),

    'cache.stats': () => cache.stats(),
    'cache.vacuum': () => cache.vacuum(),

    'media.get': async (input, ctx) => {
      const hit = cache.getMedia(input.url);
      if (hit)
        return {
          url: hit.url,
          contentType: hit.contentType,
          size: hit.bytes.byteLength,
          dataBase64: hit.bytes.toString('base64'),
          fromCache: true,
          fetchedAt: hit.fetchedAt,
        };
      if (!client.online) throw new RpcError('OFFLINE', 'Offline: this image was not viewed before, so it is not cached');
      try {
        const media = await client.fetchMedia(input.url, ctx.signal ? { signal: ctx.signal } : {});
        const fetchedAt = now();
        if (media.bytes.byteLength <= MAX_CACHED_MEDIA) cache.putMedia(input.url, media.contentType, media.bytes, fetchedAt);
        return {
          url: input.url,
          contentType: media.contentType,
          size: media.bytes.byteLength,
          dataBase64: Buffer.from(media.bytes).toString('base64'),
          fromCache: false,
          fetchedAt,
        };
      } catch (e) {
        if (e instanceof ServiceError) throw new RpcError(e.code, e.message, e.details());
        throw e;
      }
    },
  };
}
