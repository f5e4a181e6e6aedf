import type VectorTileSource from 'ol/source/VectorTile';
import { describe, expect, it } from 'vitest';
import { createStreetBasemapLayer } from '../../../../renderer/src/map/streetBasemap';

/** Web Mercator metres per pixel at a zoom of the usual 256 px scheme, written out here. */
const resolutionAt = (zoom: number) => (2 * Math.PI * 6378137) / 256 / 2 ** zoom;

describe('the street basemap layer', () => {
  it('covers a 1280 x 800 view at zoom 16 with tiles of less than twice its area, wherever the view lies', () => {
    const layer = createStreetBasemapLayer(async () => null, 'light', [[2, 48, 3, 49]]);
    const grid = (layer.getSource() as VectorTileSource).getTileGrid()!;
    const res = resolutionAt(16);
    const z = grid.getZForResolution(res);
    let covered = 0;
    let views = 0;
    // Views stepped across a tile's width and height, so every alignment to the grid is counted.
    for (let i = 0; i < 8; i++)
      for (let j = 0; j < 8; j++) {
        const x0 = 250_000 + (i / 8) * 256 * res;
        const y0 = 6_250_000 + (j / 8) * 256 * res;
        let tiles = 0;
        grid.forEachTileCoord([x0, y0, x0 + 1280 * res, y0 + 800 * res], z, () => tiles++);
        const side = grid.getTileSize(z) as number;
        covered += tiles * side * side * (grid.getResolution(z) / res) ** 2;
        views++;
      }
    // (OpenLayers' default grid of 512 px tiles covers the same views with 2.76 times their area.)
    expect(covered / views / (1280 * 800)).toBeLessThan(2);
    expect(z).toBe(16);
  });
});
