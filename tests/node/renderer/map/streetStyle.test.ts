import RenderFeature from 'ol/render/Feature';
import type { Style } from 'ol/style';
import { describe, expect, it } from 'vitest';
import { ROAD_NAME_SPACING_PX, streetStyle } from '../../../../renderer/src/map/streetStyle';

/** Web Mercator metres per pixel at zoom 16 of the usual 256 px scheme, written out here. */
const RES = (2 * Math.PI * 6378137) / 256 / 2 ** 16;

/** One tile's piece of a straight east-west road: from pixel x0 to x1 at a height, in map units. */
const piece = (name: string, x0: number, x1: number, y = 0) =>
  new RenderFeature('LineString', [x0 * RES, y * RES, x1 * RES, y * RES], [4], 2, { layer: 'roads', class: 'street', name }, undefined);

const named = (styles: Style | Style[] | undefined | void) => (Array.isArray(styles) ? styles : styles ? [styles] : []).some((s) => s.getText()?.getText());

describe('the street basemap names a road about once per screen span, not once per tile', () => {
  it('labels the pieces of a road cut into 256 px tiles no closer than the spacing, and at least once', () => {
    const style = streetStyle('light');
    // A road across 12 tiles (3,072 px), its pieces styled tile by tile as they arrive.
    const tiles = Array.from({ length: 12 }, (_, i) => piece('Nordstraße', i * 256, (i + 1) * 256));
    const labelled = tiles.filter((t) => named(style(t, RES)));
    const mids = labelled.map((t) => t.getFlatMidpoint()[0]! / RES);
    expect(labelled.length).toBeGreaterThanOrEqual(1);
    // At most one label per spacing along the road's length, computed from the road, not counted from the code.
    expect(labelled.length).toBeLessThanOrEqual(Math.ceil((12 * 256) / ROAD_NAME_SPACING_PX));
    for (let i = 1; i < mids.length; i++) expect(mids[i]! - mids[i - 1]!).toBeGreaterThanOrEqual(ROAD_NAME_SPACING_PX);
    // A tile styled again (drawn anew after a theme or overlay change) keeps the label it had.
    for (const t of tiles) expect(named(style(t, RES))).toBe(labelled.includes(t));
  });

  it('names another road of its own, and leaves a piece too short for the name unnamed', () => {
    const style = streetStyle('light');
    expect(named(style(piece('Nordstraße', 0, 256), RES))).toBe(true);
    expect(named(style(piece('Südstraße', 0, 256, 300), RES))).toBe(true);
    expect(named(style(piece('Lange Straße', 1000, 1030), RES))).toBe(false);
  });

  it('keeps the spacing per zoom: the same road one zoom in is named afresh', () => {
    const style = streetStyle('light');
    expect(named(style(piece('Nordstraße', 0, 256), RES))).toBe(true);
    const closer = new RenderFeature('LineString', [0, 0, 128 * RES, 0], [4], 2, { layer: 'roads', class: 'street', name: 'Nordstraße' }, undefined);
    expect(named(style(closer, RES / 2))).toBe(true);
  });
});
