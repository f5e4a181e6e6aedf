import Feature from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import RenderFeature from 'ol/render/Feature';
import { createEmpty, extend, type Extent } from 'ol/extent';
import { transformExtent } from 'ol/proj';
import { frameExtent } from './frameExtent';
import { facingDegrees } from './facing';

/** GeoJSON features as the service sends them (WGS84, [lon, lat]). */
export interface GeoJsonFeatureCollection {
  type: 'FeatureCollection';
  features: ReadonlyArray<{ type: 'Feature'; id?: string | number; geometry: unknown; properties?: unknown; members_bbox?: unknown }>;
}

/** A result on the map; `i` is its index in the collection it came from. */
export type MapFeature = Feature | RenderFeature;

export interface ReadResults {
  features: MapFeature[];
  /** Map-projection extent a fit frames (a group by the features it counts, a multi-part area by its main parts, frameExtent.ts); empty when nothing had a geometry. */
  extent: Extent;
  /** Features without a usable geometry (not drawn, still listed). */
  skipped: number;
  /** Every drawn feature is a point (the fast WebGL point renderer can draw them). */
  pointsOnly: boolean;
}

export interface ReadOptions {
  /** Also keep the label and facing the canvas style draws (small sets only: it costs per feature). */
  details: boolean;
  /** Columns whose values a label shows after the name (the figure the question asked about). */
  figure?: readonly string[];
}

const figureFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/**
 * The values of a result's figure columns as a label shows them ("340"), from its properties or
 * its uploaded attributes; '' when it has none of them as numbers.
 */
export function figureText(p: Record<string, unknown>, columns: readonly string[]): string {
  const attrs = (p['attributes'] && typeof p['attributes'] === 'object' ? p['attributes'] : {}) as Record<string, unknown>;
  return columns
    .map((c) => p[c] ?? attrs[c])
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
    .map((v) => figureFormat.format(v))
    .join(' · ');
}

const R = 6378137;
const MAX_LAT = 85.0511287798066;

/**
 * Results as map features. Points, nearly all of a large set, become RenderFeatures projected
 * inline: an OpenLayers Feature costs listeners and events each, which at a million points is
 * seconds before anything is drawn. Other geometries go through the GeoJSON reader.
 */
export function readResults(collection: GeoJsonFeatureCollection, options: ReadOptions): ReadResults {
  const format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
  const out: MapFeature[] = new Array(collection.features.length);
  let n = 0;
  let skipped = 0;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity; // prettier-ignore
  const others = createEmpty();
  const list = collection.features;
  for (let i = 0; i < list.length; i++) {
    const f = list[i]!;
    const props: Record<string, unknown> = { i };
    if (options.details) {
      const p = (f.properties ?? {}) as Record<string, unknown>;
      props['name'] = p['name'] ?? p['address'] ?? p['feature_name'] ?? '';
      props['facing'] = facingDegrees(p);
      if (options.figure?.length) props['figure'] = figureText(p, options.figure);
    }
    const g = f.geometry as { type?: string; coordinates?: unknown } | null;
    if (g?.type === 'Point' && Array.isArray(g.coordinates)) {
      const lon = g.coordinates[0] as number;
      const lat = g.coordinates[1] as number;
      if (!Number.isFinite(lon) || !Number.isFinite(lat)) {
        skipped++;
        continue;
      }
      const clamped = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
      const x = (R * lon * Math.PI) / 180;
      const y = R * Math.log(Math.tan(Math.PI / 4 + (clamped * Math.PI) / 360));
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      out[n++] = new RenderFeature('Point', [x, y], [], 2, props, undefined);
      continue;
    }
    let feature: Feature | null = null;
    try {
      feature = g ? (format.readFeature({ type: 'Feature', geometry: g, properties: null }) as Feature) : null;
    } catch {
      feature = null;
    }
    const geom = feature?.getGeometry();
    if (!feature || !geom) {
      skipped++;
      continue;
    }
    const framed = membersExtent(f.members_bbox);
    // A group (a country of "per country") is framed by the features it counts, not its whole area,
    // and labelled among them, where the frame shows it.
    if (framed && options.details) props['labelAt'] = centreOf(framed);
    feature.setProperties(props, true);
    extend(others, framed ?? frameExtent(geom));
    out[n++] = feature;
  }
  out.length = n;
  const extent: Extent = minX <= maxX ? extend([minX, minY, maxX, maxY], others) : others;
  return { features: out, extent, skipped, pointsOnly: others[0]! > others[2]! };
}

/** A box [west, south, east, north] in degrees (a group's `members_bbox`) in map coordinates; null for anything else. */
export function membersExtent(v: unknown): Extent | null {
  if (!Array.isArray(v) || v.length !== 4 || !v.every((n) => typeof n === 'number' && Number.isFinite(n))) return null;
  const [w, s, e, n] = v as number[];
  if (w! > e! || s! > n! || s! < -90 || n! > 90) return null;
  return transformExtent([w!, Math.max(s!, -85), e!, Math.min(n!, 85)], 'EPSG:4326', 'EPSG:3857');
}

export const centreOf = (e: Extent): [number, number] => [(e[0]! + e[2]!) / 2, (e[1]! + e[3]!) / 2];

/** The map position of a point result, or null for lines and areas. */
export function pointOf(f: MapFeature): [number, number] | null {
  if (f instanceof RenderFeature) {
    if (f.getType() !== 'Point') return null;
    const c = f.getFlatCoordinates();
    return [c[0]!, c[1]!];
  }
  const g = f.getGeometry();
  if (g?.getType() !== 'Point') return null;
  const c = (g as import('ol/geom/Point').default).getCoordinates();
  return [c[0]!, c[1]!];
}
