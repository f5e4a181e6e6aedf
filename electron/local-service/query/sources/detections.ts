import { booleanIntersects } from '@turf/turf';
import type { Geometry } from 'geojson';
import { pointLayer, type Catalog } from '../../catalog/catalog';
import { bboxOf, type BBox } from '../../layers/store/geo';
import type { LayerInfo } from '../../layers/store/layer-store';
import type { Selection } from '../../vocabulary/vocabulary';
import { LAYER_ITEM } from '../item';
import type { LayerHit } from '../layers/resolve';
import type { SeenSubject } from '../plan';
import type { LayerSource } from './layer';
import { pointCandidates } from './points';

/** The detector's classes as questions name them: its labels and their other words, from its data. */
export interface DetectorClasses {
  /** The class a phrase of folded words names ("stop signs", "people"), if any. */
  classOf(words: readonly string[]): string | undefined;
  /** Every class label, in the detector's order. */
  labels(): string[];
}

/** A photo in which the detector saw a class: where it was taken, which way, and the best sighting. */
export interface SeenPhoto {
  /** The photo's id in the imagery catalog (what the viewer opens). */
  id: string;
  /** The catalog's number for the photo, kept while its path stays: the item's number in answers. */
  key: number;
  lon: number;
  lat: number;
  /** Capture time as recorded (ISO text), null when unknown. */
  takenAt: string | null;
  /** Degrees from north the camera faced, null when unknown. */
  bearing: number | null;
  label: string;
  score: number;
  /** Left, top, width, height in the photo's pixels. */
  box: [number, number, number, number];
  /** The model that saw it, id@version. */
  model: string;
}

/** What the imagery catalog gives the question engine: the detector's classes and the photos showing one. */
export interface PhotoDetections {
  classes: DetectorClasses;
  /** Photos with a sighting of the class, each once, with its best sighting. */
  showing(label: string): Promise<SeenPhoto[]>;
  /** Photos the detector has yet to look at here (0 when it is done, or runs in no process of this service here). */
  waiting(): number;
}

/** The columns of a photo item: what conditions and refusals name. */
export const DETECTION_COLUMNS = ['feature_name', 'class', 'score', 'photo_id', 'captured_at', 'bearing', 'box', 'model'] as const;

/** The photos as answers name their source: items are listed like layer features of this layer. */
export const PHOTOS_LAYER: LayerInfo = {
  id: 'photos',
  name: 'photos',
  sourceFile: '',
  format: 'geojson',
  featureCount: 0,
  geometryTypes: {},
  bbox: null,
  sizeBytes: 0,
  licence: null,
  sourceText: 'your photos, by what the detector saw in them',
  warnings: [],
  createdAt: '',
};

/** How the executor names the subject: the question's words, and the reading said in warnings. */
export function seenSelection(seen: SeenSubject & { label: string }): Selection {
  return { label: seen.label, said: seen.said, reading: `photos in which the detector saw a ${seen.label}`, plural: seen.plural, sources: [] };
}

/**
 * The photos showing a class as a source of the question engine, on whichever backend the
 * imagery catalog is kept (the sightings are read through its storage): each photo is a point
 * at its position, its attributes the class, score, box, capture time and bearing. The photos
 * of one class are held for the question; a geodesic index answers the spatial calls.
 */
export function detectionSource(photos: readonly SeenPhoto[], catalog: Catalog): LayerSource {
  // Each photo's country is looked up when first asked for (most questions name none).
  const countryOf = new Map<number, string>();
  const countryAt = (i: number) => {
    let c = countryOf.get(i);
    if (c === undefined) {
      const ci = catalog.countryAt(photos[i]!.lon, photos[i]!.lat);
      countryOf.set(i, (c = ci >= 0 ? catalog.countries.rows[ci]!.cca2 : ''));
    }
    return c;
  };
  const regionOf = new Map(catalog.countries.rows.map((r) => [r.cca2, r.region]));
  const L = pointLayer(PHOTOS_LAYER.id, photos.map((p) => p.lon), photos.map((p) => p.lat), photos.map(() => ''));
  const points = pointCandidates(L);
  const models = [...new Set(photos.map((p) => p.model))];
  const layer: LayerInfo = {
    ...PHOTOS_LAYER,
    featureCount: photos.length,
    geometryTypes: { Point: photos.length },
    sourceText: models.length ? `${PHOTOS_LAYER.sourceText} (${models.join(', ')})` : PHOTOS_LAYER.sourceText,
  };
  const hits: LayerHit[] = photos.map((p) => ({
    layer,
    f: {
      layerId: layer.id,
      fid: p.key,
      sourceId: p.id,
      sublayer: null,
      geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
      tags: {
        // Listed by what was seen and when: "car, photo of 2024-05-01".
        name: p.takenAt ? `${p.label}, photo of ${p.takenAt.slice(0, 10)}` : `${p.label}, photo`,
        feature_name: p.label,
        class: p.label,
        score: p.score,
        photo_id: p.id,
        captured_at: p.takenAt,
        bearing: p.bearing,
        box: p.box,
        model: p.model,
      },
    },
  }));
  const at = new Map(photos.map((p, i) => [p.key, i]));
  const newestFirst = (a: LayerHit, b: LayerHit) =>
    String(b.f.tags['captured_at'] ?? '').localeCompare(String(a.f.tags['captured_at'] ?? '')) || (b.f.tags['score'] as number) - (a.f.tags['score'] as number);
  const of = async (ids: Promise<number[]>) => (await ids).map((i) => hits[i]!);
  const inBox = (box: BBox) => of(points.inBox(box));
  return {
    label: 'photos',
    populated: false,
    columns: () => [...DETECTION_COLUMNS],
    numericColumns: () => ['score', 'bearing'],
    layerColumns: () => [[...DETECTION_COLUMNS]],
    inBox,
    // Points inside the geometry's box, then the exact test: what a layer's index gives as candidates.
    intersecting: async (g: Geometry) => {
      const b = bboxOf(g);
      return b ? (await inBox(b)).filter((h) => booleanIntersects(g, h.f.geometry)) : [];
    },
    within: (point, km) => of(points.within(point, km)),
    nearest: (point, k, minKm) => of(points.nearest(point, k, minKm)),
    // Newest first, then the best seen.
    all: async () => [...hits].sort(newestFirst),
    inCountry: async (cca2) => hits.filter((_, i) => countryAt(i) === cca2),
    position: (x) => x.f.geometry.type === 'Point' ? x.f.geometry.coordinates : [0, 0],
    geometry: (x) => x.f.geometry,
    country: (x) => countryAt(at.get(x.f.fid)!),
    region: (x) => regionOf.get(countryAt(at.get(x.f.fid)!)) ?? '',
    attributes: (x) => x.f.tags,
    pointLike: true,
    // Newest first, then the best seen: the order `all` lists them in.
    compare: newestFirst,
    conditionColumns: () => [[...DETECTION_COLUMNS]],
    extent: () =>
      photos.length
        ? photos.reduce<BBox>((b, p) => [Math.min(b[0], p.lon), Math.min(b[1], p.lat), Math.max(b[2], p.lon), Math.max(b[3], p.lat)], [Infinity, Infinity, -Infinity, -Infinity])
        : null,
    item: (x) => ({ k: LAYER_ITEM, i: x.f.fid, hit: x }),
  };
}
