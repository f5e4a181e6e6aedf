import { describe, expect, it } from 'vitest';
import OverlayNames from '../../../../renderer/src/map/overlayNames';

describe('OverlayNames: what the overlays label, for the basemap to leave out', () => {
  it('knows a name inside its feature grown by the margin, in any case, and nowhere else', () => {
    const names = new OverlayNames();
    names.set('data-layer', [{ name: 'Ostviertel', extent: [0, 0, 100, 50] }]);
    expect(names.has('ostviertel', [50, 25], 0)).toBe(true);
    expect(names.has(' OSTVIERTEL ', [110, 25], 10)).toBe(true);
    expect(names.has('Ostviertel', [111, 25], 10)).toBe(false);
    expect(names.has('Nordviertel', [50, 25], 10)).toBe(false);
  });

  it('forgets what a source no longer labels, and tells listeners only of a change', () => {
    const names = new OverlayNames();
    let told = 0;
    names.onChange(() => told++);
    names.set('ask', []);
    expect(told).toBe(0);
    names.set('ask', [{ name: 'Lyon', extent: [5, 5, 5, 5] }]);
    names.set('data-layer', [{ name: 'Lyon', extent: [500, 500, 500, 500] }]);
    expect(told).toBe(2);
    names.set('ask', []);
    expect(told).toBe(3);
    expect(names.has('Lyon', [5, 5], 1)).toBe(false);
    expect(names.has('Lyon', [500, 500], 1)).toBe(true);
  });

  it("lets the basemap name a place whose overlay label gave way in the last complete frame, and takes it back once placed", () => {
    const names = new OverlayNames();
    const quarter = { name: 'Südviertel', extent: [0, 0, 100, 50] };
    const shop = { name: 'Laden 1', extent: [40, 20, 40, 20] };
    names.set('data-layer', [quarter, shop]);
    let told = 0;
    names.onChange(() => told++);
    // Until a frame is complete, the overlay's label counts as placed.
    expect(names.has('Südviertel', [50, 25], 0)).toBe(true);
    names.settle([shop]);
    expect(told).toBe(1);
    expect(names.has('Südviertel', [50, 25], 0)).toBe(false);
    // The same frame again changes nothing, and nothing is told.
    names.settle([shop]);
    expect(told).toBe(1);
    // Placed again (the view moved, the label that took its room went): the basemap leaves it out again.
    names.settle([quarter, shop]);
    expect(told).toBe(2);
    expect(names.has('Südviertel', [50, 25], 0)).toBe(true);
  });

  it('follows only the names the basemap asked about: labels of other names come and go untold', () => {
    const names = new OverlayNames();
    names.set('data-layer', [{ name: 'Laden 1', extent: [40, 20, 40, 20] }]);
    let told = 0;
    names.onChange(() => told++);
    names.settle([]);
    names.settle([{ name: 'Laden 1', extent: [40, 20, 40, 20] }]);
    expect(told).toBe(0);
  });

  it('tells apart two features of one name: the one whose label gave way is named by the basemap, the other not', () => {
    const names = new OverlayNames();
    const west = { name: 'Lyon', extent: [0, 0, 10, 10] };
    const east = { name: 'Lyon', extent: [500, 0, 510, 10] };
    names.set('ask', [west, east]);
    names.has('Lyon', [5, 5], 0);
    names.settle([east]);
    expect(names.has('Lyon', [5, 5], 0)).toBe(false);
    expect(names.has('Lyon', [505, 5], 0)).toBe(true);
  });
});
