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
});
