import type Feature from 'ol/Feature';
import type LineString from 'ol/geom/LineString';
import { fromLonLat } from 'ol/proj';
import { describe, expect, it } from 'vitest';
import FacingLayer from '../../../../renderer/src/map/FacingLayer';

/** Initial great-circle bearing from a to b, degrees clockwise from north, written from the formula. */
function bearing([lon1, lat1]: [number, number], [lon2, lat2]: [number, number]): number {
  const r = Math.PI / 180;
  const y = Math.sin((lon2 - lon1) * r) * Math.cos(lat2 * r);
  const x = Math.cos(lat1 * r) * Math.sin(lat2 * r) - Math.sin(lat1 * r) * Math.cos(lat2 * r) * Math.cos((lon2 - lon1) * r);
  return ((Math.atan2(y, x) / r) % 360 + 360) % 360;
}

describe('imagery facing arrows', () => {
  it('draws one arrow per capture, from the capture to the feature, its head turned along the bearing', () => {
    const target: [number, number] = [2.2945, 48.8584];
    // Captures about 300 m south-west, north and east of the target.
    const captures = [
      { featureId: 'sw', lon: 2.2915, lat: 48.8565 },
      { featureId: 'n', lon: 2.2945, lat: 48.8611 },
      { featureId: 'e', lon: 2.2986, lat: 48.8584 },
    ];
    const layer = new FacingLayer();
    layer.setView({ label: 'Eiffel Tower', target, captures });
    expect(layer.count).toBe(3);
    const features = layer.layer.getSource()!.getFeatures() as Feature[];
    for (const c of captures) {
      const line = features.find((f) => f.get('part') === 'line' && f.get('id') === c.featureId)!.getGeometry() as LineString;
      const [a, b] = line.getCoordinates();
      expect(a).toEqual(fromLonLat([c.lon, c.lat]));
      expect(b).toEqual(fromLonLat(target));
      const head = features.find((f) => f.get('part') === 'head' && f.get('id') === c.featureId)!;
      const degrees = (((head.get('angle') as number) * 180) / Math.PI + 360) % 360;
      const want = bearing([c.lon, c.lat], target);
      // Web Mercator keeps angles: over 300 m the drawn direction is the compass bearing to 0.1°.
      expect(Math.abs(((degrees - want + 540) % 360) - 180)).toBeLessThan(0.1);
    }
    expect(features.filter((f) => f.get('part') === 'target')).toHaveLength(1);
    layer.setView(null);
    expect(layer.count).toBe(0);
    layer.dispose();
  });
});
