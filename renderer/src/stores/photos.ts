import { defineStore } from 'pinia';
import { readonly, ref } from 'vue';
import type { RpcErrorBody } from '../../../shared/rpc/errors';
import type { PhotoStatus } from '../../../shared/rpc/methods/photos';
import { useServices } from '../services';

/** The bundled imagery catalog's photo folders: what is indexed, what was skipped and why. */
export const usePhotosStore = defineStore('photos', () => {
  const { photos } = useServices();
  const status = ref<PhotoStatus | null>(null);
  const error = ref<RpcErrorBody | null>(null);
  const busy = ref(false);

  async function load(): Promise<void> {
    const r = await photos.status();
    if (r.ok) status.value = r.value;
    else error.value = r.error;
  }

  /** Saves the folders and waits for the rescan; false when a folder was refused. */
  async function setFolders(folders: string[]): Promise<boolean> {
    busy.value = true;
    error.value = null;
    try {
      const r = await photos.setFolders(folders);
      if (!r.ok) {
        error.value = r.error;
        return false;
      }
      status.value = r.value;
      return true;
    } finally {
      busy.value = false;
    }
  }

  /** Turns the detectors and the text reader on or off for one folder. */
  async function setDetection(folder: string, on: boolean): Promise<void> {
    busy.value = true;
    error.value = null;
    try {
      const r = await photos.setDetection(folder, on);
      if (r.ok) status.value = r.value;
      else error.value = r.error;
    } finally {
      busy.value = false;
    }
  }

  /** Stops or resumes looking at the photos (detectors and text reader). */
  async function perception(action: 'cancel' | 'resume'): Promise<void> {
    const r = await photos.perception(action);
    if (r.ok) status.value = r.value;
    else error.value = r.error;
  }

  return { status: readonly(status), error: readonly(error), busy: readonly(busy), load, setFolders, setDetection, perception };
});
