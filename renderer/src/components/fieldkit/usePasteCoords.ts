import { ref, type Ref } from 'vue';
import { rewritePaste, type PasteConversion } from '../../../../shared/coords';

/**
 * A paste handler for text boxes: coordinates in DMS, DDM, UTM or MGRS are rewritten to decimal
 * degrees as they land, and the conversions are kept so the box can say what it changed.
 */
export function usePasteCoords(model: Ref<string>) {
  const conversions = ref<PasteConversion[]>([]);
  function onPaste(e: ClipboardEvent): void {
    const pasted = e.clipboardData?.getData('text/plain') ?? '';
    const r = rewritePaste(pasted);
    if (!r.conversions.length) {
      conversions.value = [];
      return;
    }
    e.preventDefault();
    const el = e.target as HTMLInputElement | HTMLTextAreaElement;
    const start = el.selectionStart ?? model.value.length;
    const end = el.selectionEnd ?? start;
    model.value = model.value.slice(0, start) + r.text + model.value.slice(end);
    conversions.value = r.conversions;
    const caret = start + r.text.length;
    queueMicrotask(() => el.setSelectionRange?.(caret, caret));
  }
  return { conversions, onPaste, clear: () => (conversions.value = []) };
}
