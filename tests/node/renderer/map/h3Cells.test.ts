import { cellToLatLng, latLngToCell, polygonToCells } from 'h3-js';
import inside from 'point-in-polygon-hao';
import { describe, expect, it } from 'vitest';
import { MAX_FILL_CELLS, TooManyCellsError, cellAt, cellsInPolygon } from '../../../../renderer/src/map/h3Cells';

// Spherical Web Mercator written out here, independent of OpenLayers.
const R = 6378137;
const toMercator = ([lon, lat]: number[]) => [
  (R * lon! * Math.PI) / 180,
  R * Math.log(Math.tan(Math.PI / 4 + (lat! * Math.PI) / 360)),
];

// A quadrilateral around Lyon, closed, [lon, lat].
const ring = [
  [4.75, 45.70],
  [4.95, 45.69],
  [4.97, 45.82],
  [4.78, 45.83],
  [4.75, 45.70],
];

describe('H3 cells from the map', () => {
  it('fills a drawn polygon with the cells h3-js polyfills for the same ring', () => {
    for (const res of [6, 7, 8]) {
      const got = cellsInPolygon(ring.map(toMercator), res);
      const expected = polygonToCells([ring], res, true);
      expect(new Set(got)).toEqual(new Set(expected));
      expect(got.length).toBe(expected.length);
    }
    const res8 = cellsInPolygon(ring.map(toMercator), 8);
    expect(res8.length).toBeGreaterThan(20);
    // Every filled cell has its centre inside the polygon.
    for (const id of res8) {
      const [lat, lon] = cellToLatLng(id);
      expect(inside([lon, lat], [ring])).not.toBe(false);
    }
  });

  it('refuses a fill that would hold more than the maximum number of cells, before computing it', () => {
    const france = [[-4.5, 43.4], [7.5, 43.4], [7.5, 50.9], [-4.5, 50.9], [-4.5, 43.4]].map(toMercator);
    expect(() => cellsInPolygon(france, 10)).toThrow(TooManyCellsError);
    try {
      cellsInPolygon(france, 10);
    } catch (e) {
      expect((e as TooManyCellsError).estimate).toBeGreaterThan(MAX_FILL_CELLS);
      expect((e as Error).message).toMatch(/coarser resolution/);
    }
    expect(cellsInPolygon(france, 3).length).toBeGreaterThan(0);
  });

  it('picks the cell under a clicked map position', () => {
    const lonLat = [2.2945, 48.8584];
    for (const res of [0, 5, 9, 15]) expect(cellAt(toMercator(lonLat), res)).toBe(latLngToCell(lonLat[1]!, lonLat[0]!, res));
  });
});
