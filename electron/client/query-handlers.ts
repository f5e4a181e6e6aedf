import { RpcError } from '../../shared/rpc/errors';
import type { ConnectionInfo } from '../../shared/rpc/methods/app';
import type { Attachment as RpcAttachment } from '../../shared/rpc/methods/compute';
import { ATTACHMENT_MAX_FILE_BYTES } from '../../shared/rpc/limits';
import type { ComputeRequestInput } from '../../shared/service/compute';
import type { StreamRequestInput } from '../../shared/service/stream';
import type { ImageryRequest } from '../../shared/service/imagery';
import type { Cache, QueryKind, QueryMeta } from '../cache';
import type { Logger } from '../ground/logger';
import type { Staging } from '../ground/staging';
import type { Handlers } from '../rpc/router';
import { ServiceError } from './errors';
import type { Attachment, Exchange, ServiceClient } from './service-client';

export interface QueryHandlerDeps {
  client: ServiceClient;
  cache: Cache;
  connection: () => ConnectionInfo;
  /** A profile's connection by id (null when it was deleted): a rerun goes where its entry was made. */
  connectionOf?: (profileId: string) => ConnectionInfo | null;
  logger: Logger;
  /** Files of questions sent ahead in chunks (uploads.stageStart); absent: staged ids are refused. */
  staging?: Staging;
  now?: () => number;
}

type QueryMethods =
  | 'compute.run'
  | 'compute.cancel'
  | 'stream.run'
  | 'stream.cancel'
  | 'imagery.search'
  | 'imagery.cancel'
  | 'service.health'
  | 'history.list'
  | 'history.get'
  | 'history.thread'
  | 'history.rerun'
  | 'history.delete'
  | 'cache.stats'
  | 'cache.vacuum'
  | 'cache.tile'
  | 'cache.tileCount'
  | 'media.get';

/** Media larger than this is served but not kept (a cache of images, not of videos). */
const MAX_CACHED_MEDIA = 25 * 1024 * 1024;

const stagedIds = (list: RpcAttachment[] | undefined): string[] => (list ?? []).flatMap((a) => ('stagedId' in a ? [a.stagedId] : []));

/**
 * The bytes of a question's files, each decoded or read once: inline ones from base64, staged
 * ones from the staging folder (each read whole, then removed).
 */
async function decode(list: RpcAttachment[] | undefined, staging: Staging | undefined): Promise<Attachment[]> {
  const out: Attachment[] = [];
  for (const a of list ?? []) {
    let content: Buffer;
    if ('dataBase64' in a) content = Buffer.from(a.dataBase64, 'base64');
    else if (!staging) throw new RpcError('VALIDATION', `${a.name}: staged files are not taken here`);
    else content = (await staging.read(a.stagedId)).bytes;
    if (content.byteLength > ATTACHMENT_MAX_FILE_BYTES)
      throw new RpcError('VALIDATION', `${a.name}: a file may be at most ${ATTACHMENT_MAX_FILE_BYTES / 1048576} MiB`, { file: a.name });
    out.push({ field: a.field, name: a.name, content, ...(a.contentType ? { contentType: a.contentType } : {}) });
  }
  return out;
}

/**
 * RPC handlers for running queries and reviewing them offline. Every run goes through the
 * service client and lands in the cache (answers, and errors the service did not refuse the
 * request with); reads use the cache only.
 */
export function createQueryHandlers(deps: QueryHandlerDeps): Pick<Handlers, QueryMethods> {
  const { client, cache } = deps;
  const now = deps.now ?? Date.now;
  const pending = new Map<string, { kind: QueryKind; ac: AbortController }>();

  /** The call's own signal (transport) joined with a cancel handle under the caller's runId. */
  async function cancellable<T>(
    kind: QueryKind,
    runId: string | undefined,
    signal: AbortSignal | undefined,
    fn: (s?: AbortSignal) => Promise<T>,
  ) {
    if (!runId) return fn(signal);
    if (pending.has(runId)) throw new RpcError('CONFLICT', `A run with id ${runId} is already pending`);
    const ac = new AbortController();
    pending.set(runId, { kind, ac });
    try {
      return await fn(signal ? AbortSignal.any([signal, ac.signal]) : ac.signal);
    } finally {
      pending.delete(runId);
    }
  }

  interface Run {
    kind: QueryKind;
    request: Record<string, unknown>;
    attachments: Attachment[];
    rerunOf?: number;
    /** Where to send it when not the active connection (a rerun). */
    connection?: ConnectionInfo;
  }

  /** Each operation cancels only its own runs, so a stale id of another tab cancels nothing. */
  const cancel = (kind: QueryKind) => (input: { runId: string }) => {
    const run = pending.get(input.runId);
    if (run?.kind !== kind) return { cancelled: false };
    run.ac.abort();
    return { cancelled: true };
  };

  /**
   * Sends one request and stores what came back: the answer, or the error when the request
   * reached (or may have reached) the service and was not refused by it. A request refused
   * (checked before sending, or a 4xx) is not kept: its text may be anything, of any size.
   * Service errors leave as RpcError.
   */
  async function perform<T>(
    r: Run,
    send: () => Promise<Exchange<T>>,
    store: (meta: QueryMeta, ex: Exchange<T>) => number,
  ): Promise<{ queryId: number; response: T }> {
    const profileId = (r.connection ?? deps.connection()).profileId;
    const startedAt = now();
    const meta = (ex?: Exchange<T>): QueryMeta => ({
      profileId,
      request: ex?.request ?? r.request,
      startedAt: ex?.startedAt ?? startedAt,
      finishedAt: ex?.finishedAt ?? now(),
      ...(r.rerunOf !== undefined ? { rerunOf: r.rerunOf } : {}),
      ...(r.attachments.length ? { uploads: r.attachments } : {}),
    });
    try {
      const ex = await send();
      return { queryId: store(meta(ex), ex), response: ex.body };
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      const refused = e.status !== undefined && e.status >= 400 && e.status < 500;
      if (e.info.sent !== false && e.code !== 'CANCELLED' && !refused) {
        const stored = { code: e.code, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}) };
        cache.storeError(r.kind, meta(), stored, e.info.body ?? null);
      }
      throw new RpcError(e.code, e.message, e.details());
    }
  }

  const callOpts = (r: Run, signal?: AbortSignal) => ({
    ...(signal ? { signal } : {}),
    ...(r.connection ? { connection: r.connection } : {}),
  });
  const runCompute = (r: Run, signal?: AbortSignal) =>
    perform(
      r,
      () => client.compute(r.request as ComputeRequestInput, { attachments: r.attachments, ...callOpts(r, signal) }),
      (meta, ex) => cache.storeCompute(meta, ex.body, ex.bytes),
    );
  const runStream = (r: Run, signal?: AbortSignal) =>
    perform(
      r,
      () => client.stream(r.request as StreamRequestInput, callOpts(r, signal)),
      (meta, ex) => cache.storeStream(meta, ex.body, ex.bytes),
    );
  const runImagery = (r: Run, signal?: AbortSignal) =>
    perform(
      r,
      () => client.imagerySearch(r.request as ImageryRequest, callOpts(r, signal)),
      (meta, ex) => cache.storeImagery(meta, ex.body, ex.bytes),
    );
  const runners = { compute: runCompute, stream: runStream, imagery: runImagery };

  const mustGet = (id: number) => {
    const rec = cache.get(id);
    if (!rec) throw new RpcError('NOT_FOUND', `No cached query with id ${id}`);
    return rec;
  };

  return {
    'compute.run': async (input, ctx) => {
      try {
        return await cancellable('compute', input.runId, ctx.signal, async (s) =>
          runCompute({ kind: 'compute', request: input.request, attachments: await decode(input.attachments, deps.staging) }, s),
        );
      } finally {
        // The staged files serve this run alone: gone after it, whether answered, cancelled or failed.
        await Promise.all(stagedIds(input.attachments).map((id) => deps.staging?.drop(id)));
      }
    },
    'stream.run': (input, ctx) =>
      cancellable('stream', input.runId, ctx.signal, (s) =>
        runStream({ kind: 'stream', request: input.request, attachments: [] }, s),
      ),
    'imagery.search': (input, ctx) =>
      cancellable('imagery', input.runId, ctx.signal, (s) =>
        runImagery({ kind: 'imagery', request: input.request, attachments: [] }, s),
      ),
    'compute.cancel': cancel('compute'),
    'stream.cancel': cancel('stream'),
    'imagery.cancel': cancel('imagery'),
    'service.health': () => client.probe(),

    'history.list': (input) => cache.list(input),
    'history.get': (input) => mustGet(input.id),
    'history.thread': (input) => {
      mustGet(input.id);
      return { nodes: cache.thread(input.id) };
    },
    'history.rerun': async (input, ctx) => {
      const rec = mustGet(input.id);
      // Sent where the entry was made (its profile's hosts and keys), whichever profile is active.
      const connection = deps.connectionOf ? deps.connectionOf(rec.profileId) : deps.connection();
      if (!connection)
        throw new RpcError('NOT_FOUND', `The connection this entry was made with (${rec.profileId}) no longer exists`);
      const request = { ...(rec.request as Record<string, unknown>) };
      // Attachment names are recorded in the request; the bytes come from the uploads table.
      delete request['files'];
      delete request['images'];
      const { queryId } = await runners[rec.kind](
        { kind: rec.kind, request, attachments: cache.uploadsOf(rec.id), rerunOf: rec.id, connection },
        ctx.signal,
      );
      return { previousId: rec.id, queryId, diff: cache.diff(rec.id, queryId) };
    },
    'history.delete': (input) => ({ deleted: cache.delete(input.id) }),

    'cache.stats': () => cache.stats(),
    'cache.vacuum': () => cache.vacuum(),
    'cache.tile': ({ z, x, y }) => ({ dataBase64: cache.getTile(z, x, y)?.toString('base64') ?? null }),
    'cache.tileCount': () => cache.tileCount(),

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
