import GeoJSON from 'ol/format/GeoJSON';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Fill, Stroke, Style } from 'ol/style';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import land50m from 'world-atlas/land-50m.json';
import countries50m from 'world-atlas/countries-50m.json';
import { unwrapAntimeridian } from './unwrapAntimeridian';

/**
 * Offline basemap from Natural Earth 1:50m (via the world-atlas package): land polygons and
 * country borders, bundled with the renderer so the map draws with no network.
 */
export function createBasemapLayers(): VectorLayer[] {
  const format = new GeoJSON({ featureProjection: 'EPSG:3857' });
  const landTopo = land50m as unknown as Topology<{ land: GeometryCollection }>;
  const countriesTopo = countries50m as unknown as Topology<{ countries: GeometryCollection }>;

  const land = new VectorLayer({
    source: new VectorSource({
      features: format.readFeatures(unwrapAntimeridian(feature(landTopo, landTopo.objects.land))),
      attributions: 'Natural Earth',
    }),
    style: new Style({ fill: new Fill({ color: '#eef0e6' }), stroke: new Stroke({ color: '#9aa89a', width: 0.6 }) }),
    properties: { name: 'basemap-land' },
    updateWhileInteracting: false,
  });
  const borders = new VectorLayer({
    source: new VectorSource({
      features: format.readFeatures(
        unwrapAntimeridian({
          type: 'Feature',
          properties: {},
          geometry: mesh(countriesTopo, countriesTopo.objects.countries, (a, b) => a !== b),
        }),
      ),
    }),
    style: new Style({ stroke: new Stroke({ color: '#8c8fa6', width: 0.8, lineDash: [4, 3] }) }),
    properties: { name: 'basemap-borders' },
  });
  return [land, borders];
}
