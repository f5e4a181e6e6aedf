import { useAskStore } from '../stores/ask';
import { useImageryStore } from '../stores/imagery';
import { useStreetStore } from '../stores/street';
import type { RunPanelId } from './registry';

/** What Esc needs of a panel's run. */
export interface PanelRun {
  readonly busy: boolean;
  cancel(): Promise<void>;
}

/** The store holding each panel's run (typed by the registry: a panel with a run must be here). */
export const RUN_STORES: Record<RunPanelId, () => PanelRun> = {
  ask: useAskStore,
  street: useStreetStore,
  imagery: useImageryStore,
};
