import type Feature from 'ol/Feature';
import type LineString from 'ol/geom/LineString';
import type Point from 'ol/geom/Point';
import { describe, expect, it } from 'vitest';
import DiffLayer from '../../../../renderer/src/map/DiffLayer';
import { diffStyle } from '../../../../renderer/src/map/diffStyles';
import { diffItems } from '../../../../renderer/src/lib/diffItems';

/** Web Mercator metres of a position, written here from the projection's formula. */
const merc = ([lon, lat]: [number, number]): [number, number] => [
  (6378137 * lon * Math.PI) / 180,
  6378137 * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)),
];

const pt = (lon: number, lat: number) => ({ type: 'Point', coordinates: [lon, lat] });

describe('the re-run diff on the map', () => {
  const result = {
    oldId: 1,
    newId: 2,
    toleranceMetres: 25,
    key: 'item id' as const,
    unchanged: 3,
    rows: [
      { id: 'new', change: 'added' as const, name: 'New', movedMetres: null, from: null },
      { id: 'gone', change: 'removed' as const, name: 'Gone', movedMetres: null, from: null },
      { id: 'far', change: 'moved' as const, name: 'Far', movedMetres: 800, from: [4.9, 45.7] as [number, number] },
      { id: 'renamed', change: 'changed' as const, name: 'New name', movedMetres: 0, from: null },
      { id: 'nowhere', change: 'added' as const, name: 'No geometry', movedMetres: null, from: null },
    ],
    features: [
      { type: 'Feature' as const, id: 'new', geometry: pt(5.1, 45.5), properties: {} },
      { type: 'Feature' as const, id: 'gone', geometry: pt(5.0, 45.9), properties: {} },
      { type: 'Feature' as const, id: 'far', geometry: pt(4.9, 45.7072), properties: {} },
      { type: 'Feature' as const, id: 'renamed', geometry: pt(4.7, 45.6), properties: {} },
    ],
  };

  it('joins each change to its geometry and old place', () => {
    const items = diffItems(result);
    expect(items.map((i) => [i.id, i.change, i.from])).toEqual(result.rows.map((r) => [r.id, r.change, r.from]));
    expect(items.find((i) => i.id === 'nowhere')!.geometry).toBeNull();
  });

  it('draws each change in its own style, and a move as a line from the old place to the new', () => {
    const layer = new DiffLayer();
    layer.setItems(diffItems(result));
    const features = layer.layer.getSource()!.getFeatures() as Feature[];
    const parts = features.map((f) => `${f.get('id') as string}:${f.get('part') as string}`).sort();
    expect(parts).toEqual(['far:moved', 'far:moved-from', 'far:moved-path', 'gone:removed', 'new:added', 'renamed:changed']);
    const path = features.find((f) => f.get('part') === 'moved-path')!.getGeometry() as LineString;
    const [a, b] = path.getCoordinates();
    const [wantA, wantB] = [merc([4.9, 45.7]), merc([4.9, 45.7072])];
    for (const [got, want] of [[a!, wantA], [b!, wantB]] as const) {
      expect(got[0]).toBeCloseTo(want[0], 3);
      expect(got[1]).toBeCloseTo(want[1], 3);
    }
    const from = features.find((f) => f.get('part') === 'moved-from')!.getGeometry() as Point;
    expect(from.getCoordinates()[1]).toBeCloseTo(wantA[1], 3);
    // Added, removed and moved never share a look.
    type Shape = { getFill?: () => { getColor: () => unknown } | null; getStroke?: () => { getColor: () => unknown } | null } | null;
    const look = (part: string) =>
      JSON.stringify(
        diffStyle(features.find((f) => f.get('part') === part)!).map((s) => {
          const image = s.getImage() as Shape;
          return [image?.getFill?.()?.getColor() ?? null, image?.getStroke?.()?.getColor() ?? null];
        }),
      );
    expect(new Set([look('added'), look('removed'), look('moved')]).size).toBe(3);
    layer.setItems(null);
    expect(layer.count).toBe(0);
    layer.dispose();
  });
});
