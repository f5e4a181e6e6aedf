import RenderFeature from 'ol/render/Feature';
import type { Style } from 'ol/style';
import { describe, expect, it } from 'vitest';
import { pmtilesStyle } from '../../../../renderer/src/map/pmtilesStyle';

const point = (layer: string, name: string, at: [number, number]) => new RenderFeature('Point', at, [2], 2, { layer, name }, undefined);
const text = (s: Style | Style[] | undefined | void) => (Array.isArray(s) ? s[0] : s)?.getText()?.getText();

describe("a PMTiles basemap's place names", () => {
  it('names places of the schemas\' place layers, and leaves out a place an overlay names there', () => {
    const asked: [string, number[]][] = [];
    const style = pmtilesStyle((name, at) => {
      asked.push([name, at]);
      return name === 'Südviertel';
    });
    for (const layer of ['places', 'place', 'place_labels']) expect(text(style(point(layer, 'Nordviertel', [10, 20]), 1))).toBe('Nordviertel');
    expect(style(point('places', 'Südviertel', [30, 40]), 1)).toBeUndefined();
    expect(asked.at(-1)).toEqual(['Südviertel', [30, 40]]);
    // A shop's point is a dot, not a place name.
    expect(text(style(point('pois', 'Laden 1', [0, 0]), 1))).toBeUndefined();
  });

  it('names every place without an overlay to ask', () => {
    expect(text(pmtilesStyle()(point('places', 'Südviertel', [30, 40]), 1))).toBe('Südviertel');
  });
});
