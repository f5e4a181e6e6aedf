import type VectorTile from 'ol/VectorTile';
import type { Extent } from 'ol/extent';
import MVT from 'ol/format/MVT';
import VectorTileLayer from 'ol/layer/VectorTile';
import { transformExtent } from 'ol/proj';
import VectorTileSource from 'ol/source/VectorTile';
import { createXYZ } from 'ol/tilegrid';
import { STREET_MAX_ZOOM, STREET_MIN_ZOOM } from '../../../shared/basemap/streetClasses';
import { base64ToBytes } from '../lib/base64';
import type { Theme } from '../lib/theme';
import { streetStyle, type PlaceNamed } from './streetStyle';
import { createTileBatch } from './tileBatch';

/** Reads one street tile (a Mapbox vector tile as base64); null where none is made. */
export type LoadStreetTile = (z: number, x: number, y: number) => Promise<string | null>;

/**
 * Longest a made tile waits for the others of its view before it is drawn: a view's tiles come
 * in two or three frames rather than one per tile (each frame lays out every label shown again),
 * and the page draws the first of them while the service is still making the rest.
 */
const BATCH_WAIT_MS = 250;

/**
 * The street basemap made from the analyst's OSM extracts: vector tiles from the layer store,
 * drawn from zoom STREET_MIN_ZOOM in (Natural Earth alone below), only over the extracts' area.
 */
export function createStreetBasemapLayer(load: LoadStreetTile, theme: Theme, bboxes: readonly Extent[], placeNamed?: PlaceNamed): VectorTileLayer {
  const format = new MVT();
  const batch = createTileBatch(BATCH_WAIT_MS);
  const extent = bboxes
    .map((b) => transformExtent(b, 'EPSG:4326', 'EPSG:3857'))
    .reduce<Extent | null>((a, b) => (a ? [Math.min(a[0]!, b[0]!), Math.min(a[1]!, b[1]!), Math.max(a[2]!, b[2]!), Math.max(a[3]!, b[3]!)] : b), null);
  const source = new VectorTileSource({
    format,
    // 256 px tiles, one zoom deeper than OpenLayers' 512 px default for the same view: a view is
    // covered by tiles reaching less far past its edges (on average 1.6 times its area rather than 2.8),
    // so a first frame has about two fifths less to make and draw.
    tileGrid: createXYZ({ tileSize: 256, minZoom: STREET_MIN_ZOOM, maxZoom: STREET_MAX_ZOOM }),
    attributions: '© OpenStreetMap contributors (your extract)',
    // Each feature is filled on its own path. Told nothing overlaps, OpenLayers joins up to 200
    // features of one style into one canvas path: with a street block's 16 buildings to a feature,
    // thousands of rings, which Chromium closes more slowly the longer the path (half of painting a tile).
    overlaps: true,
    // The "URL" only carries the tile's numbers to the load function below.
    tileUrlFunction: ([z, x, y]) => `${z}/${x}/${y}`,
    tileLoadFunction: (tile, src) => {
      const [z, x, y] = src.split('/').map(Number) as [number, number, number];
      const vt = tile as VectorTile<never>;
      vt.setLoader((tileExtent, _resolution, projection) => {
        // Each tile is read as it comes, while the others are still being made; the batch only
        // holds back handing them to the map.
        batch.add(
          () => load(z, x, y).then((data) => (data === null ? [] : format.readFeatures(base64ToBytes(data).buffer, { extent: tileExtent, featureProjection: projection }))),
          (features) => vt.setFeatures(features as never[]),
          () => vt.onError(),
        );
      });
    },
  });
  return new VectorTileLayer({
    source,
    style: streetStyle(theme, placeNamed),
    declutter: true,
    // Half a zoom early, so zooming in does not wait on a blank step.
    minZoom: STREET_MIN_ZOOM - 0.5,
    ...(extent ? { extent } : {}),
    renderMode: 'hybrid',
    properties: { name: 'basemap-street' },
  });
}

export const paintStreetBasemap = (layer: VectorTileLayer, theme: Theme, placeNamed?: PlaceNamed) => layer.setStyle(streetStyle(theme, placeNamed));
