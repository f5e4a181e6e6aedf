import { onBeforeUnmount, onMounted, type Ref } from 'vue';

const FOCUSABLE = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]';

/** The controls Tab stops at inside `root`, in document order. */
export function tabStops(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0 && !el.closest('[inert]'),
  );
}

/**
 * A panel that behaves as a dialog for the keyboard: it takes the focus when it opens, Tab and
 * Shift+Tab stay inside it, Esc asks to close, and the focus goes back to what opened it.
 * The pointer still reaches the rest of the window (the map beside it stays usable).
 */
export function useDialog(root: Ref<HTMLElement | null>, close: () => void) {
  let opener: HTMLElement | null = null;

  function onKeydown(e: KeyboardEvent): void {
    const el = root.value;
    if (!el) return;
    if (e.key === 'Escape') {
      // Handled here, so the workspace's Esc (cancel the pending run) does not also fire.
      e.preventDefault();
      e.stopPropagation();
      close();
      return;
    }
    if (e.key !== 'Tab') return;
    const stops = tabStops(el);
    if (!stops.length) return;
    const first = stops[0]!;
    const last = stops[stops.length - 1]!;
    const at = document.activeElement;
    if (e.shiftKey && (at === first || at === el)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && at === last) {
      e.preventDefault();
      first.focus();
    }
  }

  onMounted(() => {
    opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    root.value?.focus();
  });
  onBeforeUnmount(() => {
    // Only when the focus was inside: a click elsewhere that closed it keeps its own focus.
    const inside = root.value?.contains(document.activeElement) ?? false;
    if ((inside || document.activeElement === document.body) && opener?.isConnected) opener.focus();
  });

  return { onKeydown };
}
