import type { RpcClient } from '../../../shared/rpc/client';
import type { Result } from '../../../shared/rpc/errors';
import { UPLOAD_CHUNK_BASE64 } from '../../../shared/rpc/limits';
import type { Attachment, InlineAttachment } from '../../../shared/rpc/methods/compute';

/** Base64 a call carries inline at most (all its files together); larger files are staged in chunks. */
export const INLINE_MAX_BASE64 = UPLOAD_CHUNK_BASE64;

/** Bytes a base64 text stands for. */
const sizeOf = (b64: string) => (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

/**
 * Files attached to a question: read by the bundled service's own reader before anything is
 * sent, and handed to a call inline when small or staged in chunks when not (one call's frame is
 * bounded). A staged file serves one call, which removes it.
 */
export function createUploadService(rpc: RpcClient) {
  /** Sends a file in chunks; its id stands for it in the next call. */
  async function stage(name: string, dataBase64: string): Promise<Result<{ stagedId: string }>> {
    const s = await rpc.call('uploads.stageStart', { name, size: sizeOf(dataBase64) });
    if (!s.ok) return s;
    const { stagedId } = s.value;
    // Chunks of whole 4-character groups: each decodes alone, at offset i / 4 * 3.
    for (let i = 0; i < dataBase64.length; i += UPLOAD_CHUNK_BASE64) {
      const c = await rpc.call('uploads.stageChunk', { stagedId, offset: (i / 4) * 3, dataBase64: dataBase64.slice(i, i + UPLOAD_CHUNK_BASE64) });
      if (!c.ok) {
        await rpc.call('uploads.stageDrop', { stagedId });
        return c;
      }
    }
    return { ok: true, value: { stagedId } };
  }

  const drop = (list: Attachment[]) =>
    Promise.all(list.flatMap((a) => ('stagedId' in a ? [rpc.call('uploads.stageDrop', { stagedId: a.stagedId })] : [])));

  return {
    async preview(name: string, dataBase64: string) {
      if (dataBase64.length <= INLINE_MAX_BASE64) return rpc.call('uploads.preview', { name, dataBase64 });
      const s = await stage(name, dataBase64);
      return s.ok ? rpc.call('uploads.preview', { name, stagedId: s.value.stagedId }) : s;
    },
    /** A question's files as one call carries them: inline while they fit INLINE_MAX_BASE64 together, staged past it. */
    async forCall(files: readonly InlineAttachment[]): Promise<Result<Attachment[]>> {
      const out: Attachment[] = [];
      let inline = 0;
      for (const f of files) {
        if (inline + f.dataBase64.length <= INLINE_MAX_BASE64) {
          inline += f.dataBase64.length;
          out.push(f);
          continue;
        }
        const s = await stage(f.name, f.dataBase64);
        if (!s.ok) {
          await drop(out);
          return s;
        }
        const { dataBase64: _, ...head } = f;
        out.push({ ...head, stagedId: s.value.stagedId });
      }
      return { ok: true, value: out };
    },
    /** Removes the staged files of a call that was not made. */
    drop,
  };
}
export type UploadService = ReturnType<typeof createUploadService>;
