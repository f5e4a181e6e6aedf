import type { LayerName } from './layers';

/** One colour per result layer, chosen to stand apart from the basemap's land, water and borders. */
export const LAYER_COLOURS: Record<LayerName, string> = {
  ask: '#e8710a',
  imagery: '#7b3fb5',
  street: '#0f8b6e',
  history: '#e8710a',
};

/** The ring of the selected feature. */
export const SELECTED_COLOUR = '#d7301f';

/** Overlays drawn over every tab: uploaded files, picked H3 cells, named coordinates. */
export { OVERLAY_COLOURS } from '../../../shared/map/colours';
