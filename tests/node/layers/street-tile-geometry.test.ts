import type { Geometry } from 'geojson';
import GeoJSONVT from 'geojson-vt';
import { describe, expect, it } from 'vitest';
import { simplifiedLine, tileProjector, toTileFeature } from '../../../electron/local-service/layers/basemap/tile-geometry';

// geojson-vt, a separate tiler, cuts the same geometries at tile 2/1/1 (tolerance 0, same extent
// and buffer): our cut must hold the same vertices, wound the same way.
const EXTENT = 4096;
const BUFFER = 64;
const reference = (g: Geometry) => {
  const index = new GeoJSONVT({ type: 'Feature', geometry: g, properties: {} } as never, { maxZoom: 2, indexMaxZoom: 0, indexMaxPoints: 0, extent: EXTENT, buffer: BUFFER, tolerance: 0 });
  return index.getTile(2, 1, 1)?.features[0] ?? null;
};
const ours = (g: Geometry) => toTileFeature(g, tileProjector(2, 1, 1, EXTENT), EXTENT, BUFFER, {});
const signedArea = (r: number[][]) => r.reduce((s, p, i) => s + (p[0]! - r[(i + r.length - 1) % r.length]![0]!) * (p[1]! + r[(i + r.length - 1) % r.length]![1]!), 0);
const near = (a: number[][], b: number[][]) => a.every((p) => b.some((q) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!) <= 1.01));
// Tile 2/1/1 spans longitudes -90..0 and latitudes 0..66.5.
describe('street tiles: geometries projected and cut to one tile', () => {
  it('cuts an area with a hole across the tile edge like geojson-vt, outer ring and hole wound apart', () => {
    const g: Geometry = {
      type: 'Polygon',
      coordinates: [
        [[-10, 20], [10, 20], [10, 40], [-10, 40], [-10, 20]],
        [[-5, 25], [-5, 35], [-2, 35], [-2, 25], [-5, 25]],
      ],
    };
    const a = ours(g)!;
    const b = reference(g)!;
    expect(a.type).toBe(3);
    const ra = a.geometry as number[][][];
    const rb = b.geometry as unknown as number[][][];
    expect(ra).toHaveLength(2);
    expect(rb).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(near(ra[i]!, rb[i]!), `ring ${i}`).toBe(true);
      expect(near(rb[i]!, ra[i]!), `ring ${i}`).toBe(true);
      expect(Math.sign(signedArea(ra[i]!))).toBe(Math.sign(signedArea(rb[i]!)));
    }
    // The east part lies beyond the tile's buffer: cut at x = 4096 + 64.
    expect(Math.max(...ra[0]!.map((p) => p[0]!))).toBe(EXTENT + BUFFER);
  });

  it('cuts a line leaving and re-entering the tile into the same pieces, and keeps only points inside', () => {
    const g: Geometry = { type: 'LineString', coordinates: [[-80, 10], [10, 30], [-40, 50], [-45, 80]] };
    const a = ours(g)!.geometry as number[][][];
    const b = reference(g)!.geometry as unknown as number[][][];
    expect(a).toHaveLength(b.length);
    a.forEach((piece, i) => {
      expect(near(piece, b[i]!)).toBe(true);
      expect(near(b[i]!, piece)).toBe(true);
    });
    expect(ours({ type: 'MultiPoint', coordinates: [[-45, 30], [45, 30]] })!.geometry).toEqual(reference({ type: 'Point', coordinates: [-45, 30] })!.geometry);
    expect(ours({ type: 'Point', coordinates: [45, 30] })).toBeNull();
    expect(ours({ type: 'Polygon', coordinates: [[[40, 20], [50, 20], [50, 30], [40, 20]]] })).toBeNull();
  });
});

describe('street tiles: lines simplified to the tile', () => {
  // Expected lines written out by hand: which vertices are within a unit of the line through their neighbours.
  it('drops vertices on or within a unit of the straight line between the kept ones, and keeps bends and ends', () => {
    expect(simplifiedLine([[0, 0], [100, 0], [200, 0], [300, 1], [400, 0]])).toEqual([[0, 0], [400, 0]]);
    expect(simplifiedLine([[0, 0], [100, 0], [200, 3], [300, 0]])).toEqual([[0, 0], [100, 0], [200, 3], [300, 0]]);
    expect(simplifiedLine([[0, 0], [100, 0], [200, 2], [300, 0]])).toEqual([[0, 0], [200, 2], [300, 0]]);
    expect(simplifiedLine([[0, 0], [100, 0], [100, 100], [200, 100]])).toEqual([[0, 0], [100, 0], [100, 100], [200, 100]]);
    expect(simplifiedLine([[0, 0], [50, 0], [100, 0], [100, 50], [100, 100]])).toEqual([[0, 0], [100, 0], [100, 100]]);
    // A line that doubles back keeps its turning point, though that lies on the line between its ends.
    expect(simplifiedLine([[0, 0], [300, 0], [100, 0]])).toEqual([[0, 0], [300, 0], [100, 0]]);
    expect(simplifiedLine([[5, 5], [9, 9]])).toEqual([[5, 5], [9, 9]]);
  });

  it('draws a straight street mapped one way per block as one segment in the tile', () => {
    // Twenty blocks along latitude 30 in tile 2/1/1, each its own way end to end, joined.
    const coordinates = Array.from({ length: 21 }, (_, i) => [-80 + i * 3, 30]);
    const cut = ours({ type: 'LineString', coordinates })!.geometry as number[][][];
    expect(cut).toHaveLength(1);
    expect(cut[0]).toHaveLength(2);
  });
});
