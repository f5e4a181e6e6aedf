import { onBeforeUnmount, onMounted, ref } from 'vue';
import { dragHasFiles } from '../lib/files';

/**
 * Files dropped anywhere on the window go to `onFiles`; `over` is true while files are dragged
 * over it (for the drop hint). Drags of text or links inside the page are left alone.
 */
export function useFileDrop(onFiles: (files: File[]) => void) {
  const over = ref(false);
  let depth = 0;

  const enter = (e: DragEvent) => {
    if (!dragHasFiles(e)) return;
    depth++;
    over.value = true;
  };
  const leave = (e: DragEvent) => {
    if (!dragHasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) over.value = false;
  };
  const dragover = (e: DragEvent) => {
    if (!dragHasFiles(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
  };
  const drop = (e: DragEvent) => {
    if (!dragHasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    over.value = false;
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (files.length) onFiles(files);
  };

  onMounted(() => {
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('dragover', dragover);
    window.addEventListener('drop', drop);
  });
  onBeforeUnmount(() => {
    window.removeEventListener('dragenter', enter);
    window.removeEventListener('dragleave', leave);
    window.removeEventListener('dragover', dragover);
    window.removeEventListener('drop', drop);
  });
  return { over };
}
