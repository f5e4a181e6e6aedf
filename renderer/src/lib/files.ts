import { attachmentType, bytesToBase64 } from './results';

/** Picked or dropped files, read for sending over RPC. */
export async function readFiles(files: readonly File[]) {
  return Promise.all(
    files.map(async (f) => ({
      name: f.name,
      size: f.size,
      contentType: attachmentType(f.name, f.type),
      dataBase64: bytesToBase64(new Uint8Array(await f.arrayBuffer())),
    })),
  );
}

/** A drag carries files (not text or a link dragged out of the page). */
export const dragHasFiles = (e: DragEvent): boolean => Array.from(e.dataTransfer?.types ?? []).includes('Files');
