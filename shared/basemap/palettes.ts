/**
 * Colours of the app's basemaps, shared so a QGIS project export draws the basemap the map
 * draws (renderer/src/map: basemapLayers.ts, streetStyle.ts).
 */

export type BasemapTheme = 'light' | 'dark';

/** Colours of the offline basemap; the water is the map's background (--fl-map-bg in style.css). */
export interface BasemapPalette {
  land: string;
  coast: string;
  borders: string;
}

/**
 * Natural Earth's own muted tones in light; in dark, land a step above the dark water and lines
 * kept faint, so results and overlays (orange, purple, green, brown) stay the brightest things.
 */
export const BASEMAP_PALETTES: Record<BasemapTheme, BasemapPalette> = {
  light: { land: '#eef0e6', coast: '#9aa89a', borders: '#8c8fa6' },
  dark: { land: '#2c333b', coast: '#4d5a66', borders: '#6c7388' },
};

/**
 * Colours of the street basemap. Light: paper land, white streets cased in grey, warm major
 * roads, stone buildings, the Natural Earth water. Dark: the same order of strength a few steps
 * down, so results and overlays stay the brightest things on the map.
 */
export interface StreetPalette {
  water: string;
  park: string;
  wood: string;
  grass: string;
  residential: string;
  industrial: string;
  building: string;
  buildingEdge: string;
  casing: string;
  motorway: string;
  primary: string;
  secondary: string;
  street: string;
  path: string;
  rail: string;
  label: string;
  halo: string;
}

export const STREET_PALETTES: Record<BasemapTheme, StreetPalette> = {
  light: {
    water: '#b9d3e6', park: '#cfe5bd', wood: '#b9d6a6', grass: '#dcebc9', residential: '#ece8e1', industrial: '#e6dfe6',
    building: '#d6cbbd', buildingEdge: '#b9ab99', casing: '#a9a49b', motorway: '#f3b36b', primary: '#f7d38b', secondary: '#fbe8b0',
    street: '#ffffff', path: '#a0796a', rail: '#8a8a8a', label: '#2f3338', halo: '#ffffff',
  },
  dark: {
    water: '#1f2e3b', park: '#2b3d30', wood: '#26382b', grass: '#2f3b30', residential: '#30363d', industrial: '#363240',
    building: '#4a4f57', buildingEdge: '#5e646d', casing: '#1b1f24', motorway: '#9a6a3c', primary: '#8a7448', secondary: '#6f6a58',
    street: '#6d737c', path: '#8a6f63', rail: '#7a7f87', label: '#e4e7eb', halo: '#15191e',
  },
};
