import Feature from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import MultiLineString from 'ol/geom/MultiLineString';
import MultiPolygon from 'ol/geom/MultiPolygon';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Fill, Stroke, Style } from 'ol/style';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import land50m from 'world-atlas/land-50m.json';
import countries50m from 'world-atlas/countries-50m.json';
import { unwrapAntimeridian } from './unwrapAntimeridian';
import type { BasemapPalette } from './basemapPalette';

const landStyle = (p: BasemapPalette) => new Style({ fill: new Fill({ color: p.land }), stroke: new Stroke({ color: p.coast, width: 0.6 }) });
const borderStyle = (p: BasemapPalette) => new Style({ stroke: new Stroke({ color: p.borders, width: 0.8, lineDash: [4, 3] }) });

/** Recolours the layers createBasemapLayers made (a theme change). */
export function paintBasemapLayers([land, borders]: readonly VectorLayer[], palette: BasemapPalette): void {
  land?.setStyle(landStyle(palette));
  borders?.setStyle(borderStyle(palette));
}

/**
 * One feature per polygon or line of the multi-part features world-atlas gives (all land is one
 * feature, all borders another): the layer's index then hands a frame only the parts in view,
 * where one feature would have every frame draw the world's 1,400 land polygons, at street zoom too.
 */
function onePerPart(features: Feature[]): Feature[] {
  return features.flatMap((f) => {
    const g = f.getGeometry();
    if (g instanceof MultiPolygon) return g.getPolygons().map((p) => new Feature(p));
    if (g instanceof MultiLineString) return g.getLineStrings().map((l) => new Feature(l));
    return [f];
  });
}

/**
 * Offline basemap from Natural Earth 1:50m (via the world-atlas package): land polygons and
 * country borders, bundled with the renderer so the map draws with no network.
 */
export function createBasemapLayers(palette: BasemapPalette): VectorLayer[] {
  const format = new GeoJSON({ featureProjection: 'EPSG:3857' });
  const landTopo = land50m as unknown as Topology<{ land: GeometryCollection }>;
  const countriesTopo = countries50m as unknown as Topology<{ countries: GeometryCollection }>;

  const land = new VectorLayer({
    source: new VectorSource({
      features: onePerPart(format.readFeatures(unwrapAntimeridian(feature(landTopo, landTopo.objects.land)))),
      attributions: 'Natural Earth',
    }),
    style: landStyle(palette),
    properties: { name: 'basemap-land' },
    updateWhileInteracting: false,
  });
  const borders = new VectorLayer({
    source: new VectorSource({
      features: onePerPart(
        format.readFeatures(
          unwrapAntimeridian({
            type: 'Feature',
            properties: {},
            geometry: mesh(countriesTopo, countriesTopo.objects.countries, (a, b) => a !== b),
          }),
        ),
      ),
    }),
    style: borderStyle(palette),
    properties: { name: 'basemap-borders' },
  });
  return [land, borders];
}
