import type { Feature, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { coalesce, joinLines } from '../../../electron/local-service/layers/basemap/coalesce';

// A zig-zag street of 13 vertices, cut into 12 one-segment ways.
const street: Position[] = Array.from({ length: 13 }, (_, i) => [i * 0.001, (i % 2) * 0.0005]);
const pieces = street.slice(1).map((p, i) => [street[i]!, p]);
const sameLine = (a: Position[], b: Position[]) => JSON.stringify(a) === JSON.stringify(b) || JSON.stringify(a) === JSON.stringify([...b].reverse());

describe('street tiles: features that draw alike joined', () => {
  it('joins the ways of a street into the street, whatever their order and direction', () => {
    // Shuffled by a fixed permutation, every third way reversed.
    const order = [7, 2, 11, 0, 5, 9, 3, 10, 1, 8, 6, 4];
    const ways = order.map((i) => (i % 3 === 0 ? [...pieces[i]!].reverse() : pieces[i]!));
    const joined = joinLines(ways);
    expect(joined).toHaveLength(1);
    expect(sameLine(joined[0]!, street)).toBe(true);
  });

  it('keeps streets that do not meet apart', () => {
    const other: Position[] = [[5, 5], [5.001, 5.001], [5.002, 5]];
    const joined = joinLines([pieces[0]!, [other[1]!, other[2]!], pieces[1]!, [other[0]!, other[1]!]]);
    expect(joined).toHaveLength(2);
    expect(joined.some((l) => sameLine(l, street.slice(0, 3)))).toBe(true);
    expect(joined.some((l) => sameLine(l, other))).toBe(true);
  });

  it('groups by layer, class and name: areas into a few multipolygons, lines per name, points alone', () => {
    const square = (x: number): Position[][] => [[[x, 0], [x + 0.0001, 0], [x + 0.0001, 0.0001], [x, 0.0001], [x, 0]]];
    const features: Feature[] = [
      ...Array.from({ length: 40 }, (_, i): Feature => ({ type: 'Feature', properties: { layer: 'buildings', class: 'building' }, geometry: { type: 'Polygon', coordinates: square(i * 0.001) } })),
      { type: 'Feature', properties: { layer: 'buildings', class: 'building', name: 'Rathaus' }, geometry: { type: 'Polygon', coordinates: square(1) } },
      ...pieces.map((c): Feature => ({ type: 'Feature', properties: { layer: 'roads', class: 'street', name: 'Lange Straße' }, geometry: { type: 'LineString', coordinates: c } })),
      { type: 'Feature', properties: { layer: 'roads', class: 'secondary', name: 'Lange Straße' }, geometry: { type: 'LineString', coordinates: [[9, 9], [9.1, 9]] } },
      { type: 'Feature', properties: { layer: 'places', class: 'town', name: 'A' }, geometry: { type: 'Point', coordinates: [0, 0] } },
      { type: 'Feature', properties: { layer: 'places', class: 'town', name: 'A' }, geometry: { type: 'Point', coordinates: [1, 1] } },
    ];
    const out = coalesce(features);
    const of = (layer: string, cls: string, name?: string) => out.filter((f) => f.properties?.['layer'] === layer && f.properties?.['class'] === cls && f.properties?.['name'] === name);
    const rings = (fs: Feature[]) => fs.reduce((n, f) => n + (f.geometry.type === 'MultiPolygon' ? f.geometry.coordinates.length : 1), 0);
    // 40 unnamed buildings: 16 + 16 + 8, every one kept.
    expect(of('buildings', 'building')).toHaveLength(3);
    expect(rings(of('buildings', 'building'))).toBe(40);
    expect(of('buildings', 'building', 'Rathaus')).toHaveLength(1);
    const lange = of('roads', 'street', 'Lange Straße');
    expect(lange).toHaveLength(1);
    expect(lange[0]!.geometry.type).toBe('LineString');
    expect(sameLine((lange[0]!.geometry as { coordinates: Position[] }).coordinates, street)).toBe(true);
    expect(of('roads', 'secondary', 'Lange Straße')).toHaveLength(1);
    expect(of('places', 'town', 'A')).toHaveLength(2);
  });
});
