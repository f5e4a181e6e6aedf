import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { sendProblem } from '../http/problem';
import type { ImageryCatalog } from './catalog';
import { thumbnail, type MediaSigner, type MediaVariant, type Thumbnail } from './media';
import type { ServiceContext } from './plugin-types';
import type { ImageryStorage } from './storage';

/** What serving a photo's bytes needs of the plugin's state. */
export interface MediaState {
  ctx: ServiceContext;
  store: ImageryStorage;
  catalog: ImageryCatalog;
  signer: MediaSigner;
  thumbDir: string;
}

/** Media paths: the base host under /v1, the search host without a version, like the APIs there. */
export const MEDIA_PATH = { base: '/v1/imagery/media', search: '/imagery/media' } as const;

const MediaParams = z.object({ id: z.guid() });

/** One byte range of a Range header (video players seek with them); multiple ranges get the whole file. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'invalid' | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (!m[1] && !m[2])) return null;
  let start: number;
  let end: number;
  if (!m[1]) {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  }
  return start > end || start >= size ? 'invalid' : { start, end };
}

/** A photo's (or its thumbnail's) signed URL on a host. */
export const mediaUrl = (signer: MediaSigner, base: string, path: string, id: string, variant: MediaVariant) =>
  `${base.replace(/\/+$/, '')}${path}/${id}${variant === 'thumb' ? '/thumb' : ''}?sig=${signer.sign(id, variant)}`;

export const registerMedia = (app: FastifyInstance, s: MediaState, path: string) => {
  // Signed capability URLs instead of the host's key check: see MediaSigner.
  app.get(`${path}/:id`, { config: { auth: false } }, (req, reply) =>
    serveMedia(s, req.params, req.query, reply, 'image', req.headers.range),
  );
  app.get(`${path}/:id/thumb`, { config: { auth: false } }, (req, reply) =>
    serveMedia(s, req.params, req.query, reply, 'thumb', undefined),
  );
};

const serveMedia = async (
  s: MediaState,
  params: unknown,
  query: unknown,
  reply: FastifyReply,
  variant: MediaVariant,
  rangeHeader: string | undefined,
) => {
  const p = MediaParams.safeParse(params);
  const sig = (query as { sig?: unknown } | undefined)?.sig;
  if (!p.success || !s.signer.verify(p.data.id, variant, sig))
    return sendProblem(reply, 404, 'Not Found', 'No such media, or the link is not valid.');
  const row = await s.store.byId(p.data.id);
  if (!row) return sendProblem(reply, 404, 'Not Found', 'The photo is no longer in the catalog.');
  if (variant === 'thumb' && row.is_video) return sendProblem(reply, 404, 'Not Found', 'Videos have no thumbnail.');
  // Gone, or not the file indexed: the catalog reads the path again (and drops it when it is no photo).
  const opened = await s.catalog.openPhoto(row);
  if (!opened.ok) return sendProblem(reply, 404, 'Not Found', 'The photo is no longer in the catalog.');
  // Everything below reads from this handle; a stream sent closes it when done.
  const { handle, size } = opened.file;
  let streaming = false;
  try {
    reply.header('cache-control', 'private, max-age=86400').header('accept-ranges', 'bytes');
    if (variant === 'thumb') {
      const thumb = await thumbnail(row, () => handle.readFile(), s.thumbDir).catch(
        (err: Error): Thumbnail => ({ kind: 'none', reason: `it could not be decoded (${err.message})` }),
      );
      if (thumb.kind === 'jpeg') return reply.type('image/jpeg').send(thumb.bytes);
      if (thumb.kind === 'none') {
        s.ctx.logger.info('imagery: no thumbnail', { id: row.id, reason: thumb.reason });
        return sendProblem(reply, 404, 'Not Found', `No thumbnail: ${thumb.reason}.`);
      }
      // The original is within a thumbnail's size: sent whole, never a range of it.
      rangeHeader = undefined;
    }
    const range = byteRange(rangeHeader, size);
    if (range === 'invalid') return reply.code(416).header('content-range', `bytes */${size}`).send();
    streaming = true;
    if (range) {
      return reply
        .code(206)
        .type(row.mime)
        .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
        .header('content-length', range.end - range.start + 1)
        .send(handle.createReadStream(range));
    }
    return reply.type(row.mime).header('content-length', size).send(handle.createReadStream({ start: 0 }));
  } finally {
    if (!streaming) await handle.close();
  }
};
