import type { Theme } from '../lib/theme';

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
export const BASEMAP_PALETTES: Record<Theme, BasemapPalette> = {
  light: { land: '#eef0e6', coast: '#9aa89a', borders: '#8c8fa6' },
  dark: { land: '#2c333b', coast: '#4d5a66', borders: '#6c7388' },
};
