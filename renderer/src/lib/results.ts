import type { QueryRecord } from '../../../shared/rpc/methods/history';
import type { ComputeFeature } from '../../../shared/service/compute';
import type { ImageryRecord } from '../../../shared/service/imagery';
import { responseItems } from '../../../shared/service/items';
import type { Observation } from '../../../shared/service/stream';
import { compassDegrees } from './compass';
import { formatCaptureDate } from './format';
import { formatOfFile } from '../../../shared/formats';

/** GeoJSON as the map takes it (WGS84, [lon, lat]). */
export interface FeatureCollectionLike {
  type: 'FeatureCollection';
  features: Array<{ type: 'Feature'; id: string; geometry: unknown; properties: Record<string, unknown>; members_bbox?: unknown }>;
}

/** One line of a result list, whatever the operation. */
export interface ResultRow {
  id: string;
  title: string;
  subtitle: string;
  /** Metres from the asked position; null when the answer measured none. */
  distanceMeters: number | null;
  /** Image to show (imagery and street-level), fetched through media.get. */
  imageUrl: string | null;
  date: string | null;
  compass: string | null;
  /** Short labels shown beside the title (360°, video). */
  badges?: string[];
  /** The image was withheld by the service (a street-level observation with no image_url). */
  redacted?: boolean;
  /** A video observation: its link and length in seconds, when given. */
  video?: { url: string | null; id: string | null; duration: number | null } | null;
  /** Facing in degrees clockwise from north, when known. */
  facing?: number | null;
  /** Where an observation comes from (spec: source), when given. */
  source?: string | null;
  /** What a detector saw in the image (boxes in its pixels), when the service sent it. */
  seen?: SeenBox[];
}

/** A detector's box: class, score 0..1, and [left, top, width, height] in the image's pixels. */
export interface SeenBox {
  label: string;
  score: number;
  box: [number, number, number, number];
}

/** The `detections` extra property of an observation (the bundled service's), checked item by item. */
export function seenBoxes(v: unknown): SeenBox[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((d: unknown) => {
    const x = d as { label?: unknown; score?: unknown; box?: unknown };
    const box = x?.box;
    return typeof x?.label === 'string' && typeof x.score === 'number' && Array.isArray(box) && box.length === 4 && box.every((n) => typeof n === 'number')
      ? [{ label: x.label, score: x.score, box: box as SeenBox['box'] }]
      : [];
  });
}

export const computeRows = (features: readonly ComputeFeature[]): ResultRow[] =>
  features.map((f) => ({
    id: f.id,
    title: f.properties.name || f.id,
    subtitle: f.properties.address,
    // Compute sends 0 when the question had no reference point: nothing to show then.
    distanceMeters: f.properties.distance_meters > 0 ? f.properties.distance_meters : null,
    imageUrl: null,
    date: null,
    compass: null,
  }));

export const imageryRows = (records: readonly ImageryRecord[]): ResultRow[] =>
  records.map((r) => ({
    id: r.id,
    title: r.address,
    subtitle: '',
    distanceMeters: r.distance_meters ?? null,
    imageUrl: r.image || null,
    date: r.date,
    compass: r.interactive ? `${r.compass} · 360°` : r.compass,
    badges: r.interactive ? ['360°'] : [],
    facing: compassDegrees(r.compass),
  }));

export const observationRows = (obs: readonly Observation[]): ResultRow[] =>
  obs.map((o) => {
    const seen = seenBoxes(o.properties['detections']);
    return {
    id: o.id,
    title: o.properties.address ?? o.properties.feature_name,
    subtitle: [o.properties.feature_name, o.properties.owner].filter(Boolean).join(' · '),
    distanceMeters: o.properties.distance_meters ?? null,
    imageUrl: o.properties.image_url,
    date: formatCaptureDate(o.properties.date),
    compass: null,
    badges: [
      ...(o.properties.interactive ? ['360°'] : []),
      ...(o.properties.is_video ? ['Video'] : []),
      // The class matched, when the detector saw it (not only words of the caption).
      ...(o.properties['match'] === 'seen' && seen.length ? [`Seen: ${o.properties.feature_name} ${Math.round(seen[0]!.score * 100)}%`] : []),
    ],
    seen,
    redacted: !o.properties.image_url,
    video: o.properties.is_video
      ? { url: o.properties.video_url ?? null, id: o.properties.video_id ?? null, duration: o.properties.duration ?? null }
      : null,
    source: o.properties.source,
    // Not in the spec, but sent by some services (the bundled one among them).
    facing: typeof o.properties['heading'] === 'number' ? (o.properties['heading'] as number) : compassDegrees(o.properties['compass'] as string | undefined),
    };
  });

export function collectionOf(features: ReadonlyArray<{ id: string; geometry: unknown; properties?: unknown; members_bbox?: unknown }>): FeatureCollectionLike {
  return {
    type: 'FeatureCollection',
    features: features.map((f) => ({
      type: 'Feature',
      id: f.id,
      geometry: f.geometry,
      properties: (f.properties ?? {}) as Record<string, unknown>,
      // Where the features a group counts lie (the bundled service's per-country answers): the map frames that.
      ...(f.members_bbox !== undefined ? { members_bbox: f.members_bbox } : {}),
    })),
  };
}

/** Imagery records as map features; every field but the geometry is a property (for details). */
export const imageryCollection = (records: readonly ImageryRecord[]): FeatureCollectionLike =>
  collectionOf(
    records.map((r) => {
      const { geometry, ...properties } = r;
      return { id: r.id, geometry, properties };
    }),
  );

/** What a cached query shows: its rows and map features, read from the body exactly as received. */
export interface CachedView {
  rows: ResultRow[];
  collection: FeatureCollectionLike;
  warnings: unknown[];
  answer: string | null;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

export function viewOfRecord(rec: QueryRecord): CachedView {
  const empty: CachedView = { rows: [], collection: collectionOf([]), warnings: rec.warnings, answer: rec.answerContent };
  if (!rec.raw) return empty;
  let body: Record<string, unknown>;
  try {
    body = obj(JSON.parse(rec.raw));
  } catch {
    return empty;
  }
  const items = responseItems(rec.kind, body);
  if (rec.kind === 'compute') {
    const features = items as ComputeFeature[];
    return { ...empty, rows: computeRows(features), collection: collectionOf(features) };
  }
  if (rec.kind === 'stream') {
    const features = items as Observation[];
    return { ...empty, rows: observationRows(features), collection: collectionOf(features) };
  }
  const records = items as ImageryRecord[];
  return { ...empty, rows: imageryRows(records), collection: imageryCollection(records) };
}

/** Base64 of bytes without spreading huge arrays onto the call stack. */
export function bytesToBase64(bytes: Uint8Array): string {
  let text = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) text += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(text);
}

/** Content type for an attached file, from its name when the browser gives none. */
export function attachmentType(name: string, given: string): string {
  if (given) return given;
  const f = formatOfFile(name, 'upload');
  return f?.mime[0] ?? 'application/octet-stream';
}

/** A fresh id for compute.cancel. */
export const newRunId = (): string => `run-${crypto.randomUUID()}`;
