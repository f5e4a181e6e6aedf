import type BaseLayer from 'ol/layer/Base';
import LayerGroup from 'ol/layer/Group';
import type VectorLayer from 'ol/layer/Vector';
import type VectorSource from 'ol/source/Vector';
import type Cluster from 'ol/source/Cluster';
import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import PointsLayer from '../../../../renderer/src/map/PointsLayer';
import ResultsLayer from '../../../../renderer/src/map/ResultsLayer';

const merc = (lon: number, lat: number) => proj4('EPSG:4326', 'EPSG:3857', [lon, lat]) as [number, number];

/** `n` points on a 100 x (n / 100) grid over lon 0..10, lat 40..45, then a line and a feature without geometry. */
function mixed(n: number) {
  const at = (i: number): [number, number] => [(10 * (i % 100)) / 100, 40 + (5 * Math.floor(i / 100)) / (n / 100)];
  const features = [
    ...Array.from({ length: n }, (_, i) => ({ type: 'Feature' as const, id: `p${i}`, geometry: { type: 'Point', coordinates: at(i) } })),
    { type: 'Feature' as const, id: 'road', geometry: { type: 'LineString', coordinates: [[-3, 39], [12, 47]] } },
    { type: 'Feature' as const, id: 'nowhere', geometry: null },
  ];
  return { collection: { type: 'FeatureCollection' as const, features }, at };
}

/** Every layer under the results group, groups opened. */
function leaves(layer: BaseLayer): BaseLayer[] {
  return layer instanceof LayerGroup ? layer.getLayers().getArray().flatMap(leaves) : [layer];
}

describe('a large result set on the map', () => {
  const { collection, at } = mixed(6_000);
  const layer = new ResultsLayer({ name: 'ask', color: '#e8710a' });
  layer.setFeatures(collection);
  const resolution = 1000;

  it('draws its points from one buffer and its line on the vector layer, and bounds both', () => {
    expect(layer.renderMode).toBe('webgl');
    const all = leaves(layer.group);
    const points = all.filter((l): l is PointsLayer => l instanceof PointsLayer);
    expect(points).toHaveLength(1);
    expect(points[0]!.getPoints()!.count).toBe(6_000);
    const others = all.find((l) => l.get('name') === 'ask-others') as VectorLayer<VectorSource>;
    const [road] = others.getSource()!.getFeatures();
    expect(others.getSource()!.getFeatures()).toHaveLength(1);
    // OpenLayers' hit detection finds the line; it stands for the collection's feature of that id.
    expect(layer.owns(others)).toBe(true);
    expect(layer.owns(points[0])).toBe(false);
    expect(layer.hitOf(road!)).toEqual({ id: 'road' });
    const [minX, minY] = merc(-3, 39);
    const [maxX, maxY] = merc(12, 47);
    const e = layer.extent()!;
    [minX, minY, maxX, maxY].forEach((v, k) => expect(e[k]).toBeCloseTo(v, 0));
  });

  it('picks a point through the index, by its id in the collection', () => {
    for (const i of [0, 1234, 5999]) {
      const [lon, lat] = at(i);
      const [x, y] = merc(lon, lat);
      expect(layer.pickAt([x + 2 * resolution, y - resolution], resolution, 4)).toEqual({ id: `p${i}` });
    }
    // Far from every point (and from the line, which the index does not hold): nothing.
    expect(layer.pickAt(merc(-2, 30), resolution, 4)).toBeNull();
  });

  it('clusters every result on request, picked by OpenLayers then, and draws from the buffer again after', () => {
    layer.setDisplay('cluster');
    expect(layer.renderMode).toBe('cluster');
    const drawing = leaves(layer.group).find((l) => l.get('name') === 'ask-cluster') as VectorLayer<Cluster>;
    expect(drawing.getSource()!.getSource()!.getFeatures()).toHaveLength(6_001);
    expect(layer.owns(drawing)).toBe(true);
    const [x, y] = merc(...at(0));
    expect(layer.pickAt([x, y], resolution, 4)).toBeNull();
    layer.setDisplay('features');
    expect(layer.renderMode).toBe('webgl');
    expect(layer.pickAt([x, y], resolution, 4)).toEqual({ id: 'p0' });
  });

  it('draws a small set feature by feature on canvas, picked by OpenLayers', () => {
    const small = new ResultsLayer({ name: 'ask', color: '#e8710a' });
    small.setFeatures(mixed(100).collection);
    expect(small.renderMode).toBe('canvas');
    expect(leaves(small.group).some((l) => l instanceof PointsLayer)).toBe(false);
    expect(small.pickAt(merc(0, 40), resolution, 4)).toBeNull();
    small.dispose();
  });

  it('names a selected feature once: its label moves from the set to the selection, and back', () => {
    const named = {
      type: 'FeatureCollection' as const,
      features: ['Lyon', 'Bron', 'Vienne'].map((name, i) => ({ type: 'Feature' as const, id: `f${i}`, geometry: { type: 'Point', coordinates: [4.8 + i / 10, 45.7] }, properties: { name } })),
    };
    const small = new ResultsLayer({ name: 'ask', color: '#e8710a' });
    small.setFeatures(named);
    const all = leaves(small.group) as VectorLayer<VectorSource>[];
    const selection = all.find((l) => l.get('name') === 'ask-selection')!;
    const drawing = all.find((l) => l !== selection)!;
    // Every label drawn for a name, over the set's layer and the selection's.
    const labels = (name: string) =>
      [drawing, selection]
        .flatMap((l) => l.getSource()!.getFeatures().map((f) => [f, l.getStyleFunction()!(f, 100)] as const))
        .flatMap(([, st]) => (Array.isArray(st) ? st : st ? [st] : []))
        .filter((st) => st.getText()?.getText() === name).length;
    expect(['Lyon', 'Bron', 'Vienne'].map(labels)).toEqual([1, 1, 1]);
    small.select('f1');
    expect(['Lyon', 'Bron', 'Vienne'].map(labels)).toEqual([1, 1, 1]);
    expect(selection.getSource()!.getFeatures().map((f) => f.get('name'))).toEqual(['Bron']);
    small.select(undefined);
    expect(['Lyon', 'Bron', 'Vienne'].map(labels)).toEqual([1, 1, 1]);
    small.dispose();
  });
});
