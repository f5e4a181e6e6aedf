import { describe, expect, it } from 'vitest';
import { toLonLat } from 'ol/proj';
import type LineString from 'ol/geom/LineString';
import type MultiLineString from 'ol/geom/MultiLineString';
import ReferenceLayer from '../../../renderer/src/map/ReferenceLayer';
import { usePlacesStore } from '../../../renderer/src/stores/places';
import type { QuestionReading } from '../../../shared/service/reading';
import { scriptedClient, withStores } from './support/stores';

/** A line an answer was measured from ("along the Lenne") is drawn as itself, named along it. */
const RIVER = [
  [7.1, 51.2],
  [7.12, 51.21],
  [7.15, 51.215],
  [7.2, 51.23],
  [7.22, 51.25],
];
const reading = (line?: boolean): QuestionReading => ({
  subject: 'pharmacies',
  source: 'layer',
  filters: [],
  relations: [{ relation: 'within 50 m', reference: 'the Lenne', max_km: 0.05, ...(line ? { line: { type: 'MultiLineString', coordinates: [RIVER as [number, number][]] } } : {}) }],
  text: 'pharmacies · within 50 m of the Lenne',
});

describe('a line reference on the map', () => {
  it('is the reading\'s line, named at its middle, with no look-up of the name and no circle', async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: { name: 'Lenne', kind: 'city', lon: 0, lat: 0, geometry: null } }));
    const places = withStores(client, () => usePlacesStore());
    const refs = await places.referencesOf(reading(true));
    expect(calls.filter((c) => c.method === 'places.find')).toEqual([]);
    expect(refs).toEqual([{ label: 'the Lenne', lon: RIVER[2]![0], lat: RIVER[2]![1], line: { type: 'MultiLineString', coordinates: [RIVER] } }]);

    const layer = new ReferenceLayer('light');
    layer.set(refs);
    const features = layer.layer.getSource()!.getFeatures();
    expect(features.map((f) => f.get('part'))).toEqual(['line']);
    const drawn = (features[0]!.getGeometry() as MultiLineString).getLineStrings() as LineString[];
    const back = drawn[0]!.getCoordinates().map((c) => toLonLat(c));
    back.forEach((p, i) => {
      expect(p[0]).toBeCloseTo(RIVER[i]![0]!, 9);
      expect(p[1]).toBeCloseTo(RIVER[i]![1]!, 9);
    });
    layer.dispose();
  });

  it('without a line, the name is looked up as a place, as before', async () => {
    const { client, calls } = scriptedClient(async () => ({ ok: true, value: null }));
    const places = withStores(client, () => usePlacesStore());
    expect(await places.referencesOf(reading(false))).toEqual([]);
    expect(calls.filter((c) => c.method === 'places.find').map((c) => c.input)).toEqual([{ text: 'the Lenne' }]);
  });
});
