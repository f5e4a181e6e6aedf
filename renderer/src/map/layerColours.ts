import { PANELS } from '../panels/registry';
import type { LayerName } from './layers';

/** One colour per result layer (its panel's descriptor), chosen to stand apart from the basemap's land, water and borders. */
export const LAYER_COLOURS = Object.fromEntries(PANELS.flatMap((p) => (p.layer ? [[p.id, p.layer.colour]] : []))) as Record<LayerName, string>;

/** The ring of the selected feature. */
export const SELECTED_COLOUR = '#d7301f';

/** Overlays drawn over every tab: uploaded files, picked H3 cells, named coordinates. */
export { OVERLAY_COLOURS } from '../../../shared/map/colours';
