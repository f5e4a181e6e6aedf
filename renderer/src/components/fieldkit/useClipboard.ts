import { ref } from 'vue';

/** Copies text and says what was copied for a moment (or why it could not be). */
export function useClipboard() {
  const copied = ref<string | null>(null);
  const failed = ref<string | null>(null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  async function copy(text: string, label = text): Promise<void> {
    failed.value = null;
    try {
      await navigator.clipboard.writeText(text);
      copied.value = label;
      clearTimeout(timer);
      timer = setTimeout(() => (copied.value = null), 2500);
    } catch (e) {
      failed.value = `Could not copy: ${(e as Error).message}`;
    }
  }
  return { copied, failed, copy };
}
