import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { Attachment, InlineAttachment } from '../../../shared/rpc/methods/compute';
import type { UploadPreview } from '../../../shared/rpc/methods/uploads';
import { useServices } from '../services';
import { uploadCollection } from '../map/uploadFeatures';
import { useMapStore } from './map';

/** A file or reference image waiting to be sent with the next question. */
export interface AttachedFile {
  field: Attachment['field'];
  name: string;
  size: number;
  contentType: string;
  dataBase64: string;
  /** Files: what the service's reader makes of it (null while it reads). */
  preview: UploadPreview | null;
  /** Files: the preview itself could not be made. */
  previewError: RpcErrorBody | null;
  /** The answered question it went with; it is not sent again unless kept or sent again. */
  usedFor: string | null;
}

/** Images are reference images; everything else is a data file (CSV, GeoJSON). */
export const fieldOf = (contentType: string, name: string): Attachment['field'] =>
  contentType.startsWith('image/') || /\.(jpe?g|png|webp|gif|heic)$/i.test(name) ? 'images' : 'files';

/**
 * The composer's files and reference images. Each data file is previewed by the bundled
 * service's own reader (uploads.preview) before anything is sent, so its features, coordinate
 * columns and bad lines are known in advance.
 */
export const useAttachmentsStore = defineStore('attachments', () => {
  const { uploads } = useServices();
  const map = useMapStore();
  const items = ref<AttachedFile[]>([]);
  /** Files and images ride along with later questions too (else they go once their question is answered). */
  const keep = ref(false);

  const update = (field: AttachedFile['field'], name: string, patch: Partial<AttachedFile>) => {
    items.value = items.value.map((a) => (a.field === field && a.name === name ? { ...a, ...patch } : a));
  };

  /** Adds files (one of the same name and kind is replaced) and previews the data files. */
  async function attach(files: ReadonlyArray<Omit<AttachedFile, 'field' | 'preview' | 'previewError' | 'usedFor'>>): Promise<void> {
    const added: AttachedFile[] = files.map((f) => ({ ...f, field: fieldOf(f.contentType, f.name), preview: null, previewError: null, usedFor: null }));
    const key = (a: AttachedFile) => `${a.field}:${a.name}`;
    const replaced = new Set(added.map(key));
    items.value = [...items.value.filter((a) => !replaced.has(key(a))), ...added];
    // A replaced file's old features leave the map until its new preview arrives.
    for (const a of added) if (a.field === 'files') map.showUploads(a.name, null);
    await Promise.all(
      added
        .filter((a) => a.field === 'files')
        .map(async (a) => {
          const r = await uploads.preview(a.name, a.dataBase64);
          // The file may have been removed or replaced meanwhile.
          if (!items.value.some((x) => x.field === 'files' && x.name === a.name && x.dataBase64 === a.dataBase64)) return;
          update('files', a.name, r.ok ? { preview: r.value } : { previewError: r.error });
          // The file is drawn as its own layer from the preview on, and stays after the question runs.
          if (r.ok && r.value.positions.length) map.showUploads(a.name, uploadCollection(r.value));
        }),
    );
  }

  function detach(field: AttachedFile['field'], name: string): void {
    items.value = items.value.filter((a) => !(a.field === field && a.name === name));
    if (field === 'files') map.showUploads(name, null);
  }
  function clear(): void {
    for (const a of items.value) if (a.field === 'files') map.showUploads(a.name, null);
    items.value = [];
  }

  /** Kept: everything attached goes with every question from now on (what was used included). */
  function setKeep(on: boolean): void {
    keep.value = on;
    if (on) items.value = items.value.map((a) => ({ ...a, usedFor: null }));
  }
  /**
   * A question was answered with what is attached: it belonged to that question, unless kept. It
   * stays listed (and its file on the map) until removed, and can be sent again.
   */
  function answered(question: string): void {
    if (!keep.value) items.value = items.value.map((a) => (a.usedFor === null ? { ...a, usedFor: question } : a));
  }
  function sendAgain(field: AttachedFile['field'], name: string): void {
    update(field, name, { usedFor: null });
  }

  /** Every file and image not yet used by an answered question, as it was picked (the call stages the large ones). */
  const forRequest = (): InlineAttachment[] =>
    items.value.filter((a) => a.usedFor === null).map((a) => ({ field: a.field, name: a.name, contentType: a.contentType, dataBase64: a.dataBase64 }));

  return {
    files: computed(() => items.value.filter((a) => a.field === 'files')),
    images: computed(() => items.value.filter((a) => a.field === 'images')),
    count: computed(() => items.value.length),
    attach,
    detach,
    clear,
    keep: computed(() => keep.value),
    setKeep,
    answered,
    sendAgain,
    forRequest,
  };
});
