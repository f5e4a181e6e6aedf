export { BASEMAP_PALETTES, type BasemapPalette } from '../../../shared/basemap/palettes';
