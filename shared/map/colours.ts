/**
 * Colours of what the map draws besides the answers, shared so exports (QGIS projects) draw the
 * same things in the same colours.
 */
export const OVERLAY_COLOURS = {
  uploads: '#8c564b',
  h3: '#1f77b4',
  coordinates: '#1d2733',
} as const;

/** Features of data layers shown beside an answer. */
export const DATA_LAYER_COLOUR = '#5b6770';
