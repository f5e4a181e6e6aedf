import { LAYER_PANELS, type LayerPanelId } from '../panels/registry';

/** The result layers of the workspace: one per panel that has one; only the active panel's layer is shown. */
export const LAYERS: readonly LayerPanelId[] = LAYER_PANELS;
export type LayerName = LayerPanelId;
