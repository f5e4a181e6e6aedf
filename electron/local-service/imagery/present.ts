import { captureDateText, compassText, type ImageryRecord } from '../../../shared/service/imagery';
import type { Observation } from '../../../shared/service/stream';
import type { Region } from './geocoder';
import type { MediaSigner } from './media';
import { MEDIA_PATH, mediaUrl } from './media-routes';
import type { StreamHit } from './query';
import type { PhotoRow } from './store';

// A photo as each host presents it: an observation of the stream, a record of imagery search.

function monthText(m: number | null): string | null {
  return m ? String(m).padStart(2, '0') : null;
}

function keywordsOf(row: PhotoRow): string[] {
  try {
    const k = JSON.parse(row.keywords) as unknown;
    return Array.isArray(k) ? k.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function regionItem(r: Region, count?: number) {
  return { region_id: r.id, name: r.name, code: r.code, type: 'country', ...(count === undefined ? {} : { count }) };
}

export const observation = (signer: MediaSigner, base: string, hit: StreamHit): Observation => {
  const r = hit.row;
  const video = r.is_video === 1;
  const fileUrl = mediaUrl(signer, base, MEDIA_PATH.base, r.id, 'image');
  return {
    type: 'Feature',
    id: r.id,
    geometry: { type: 'Point', coordinates: [r.lon, r.lat] },
    properties: {
      id: r.id,
      address: r.address,
      date: r.taken_at,
      year: r.year ? String(r.year) : null,
      month: monthText(r.month),
      source: r.make,
      owner: r.artist ?? r.make,
      feature_name: hit.featureName,
      // Not in the spec: how the capture matched, and what the detector saw of the asked classes.
      match: hit.match,
      ...(hit.match === 'seen' ? { score: hit.seen[0]!.score, detections: hit.seen } : {}),
      // No frame is extracted from videos, so they have no still image.
      image_url: video ? null : fileUrl,
      is_video: video,
      video_id: video ? r.id : null,
      video_url: video ? fileUrl : null,
      duration: video ? r.duration : null,
      interactive: r.interactive === 1,
      // Not in the observation table of the spec; extra detail the app can show.
      thumbnail_url: video ? null : mediaUrl(signer, base, MEDIA_PATH.base, r.id, 'thumb'),
      heading: r.direction,
      compass: r.direction === null ? null : compassText(r.direction),
      description: r.description,
      keywords: keywordsOf(r),
      region_id: r.region_id,
      country: r.country,
      distance_meters: hit.distanceMeters,
    },
  };
};

export const record = (signer: MediaSigner, base: string, r: PhotoRow, distanceMeters?: number, textSeen?: string[]): ImageryRecord => ({
  id: r.id,
  address: r.address,
  // Without a recorded capture date the file's modification date stands in.
  date: captureDateText(r.taken_at ? new Date(`${r.taken_at.slice(0, 10)}T00:00:00Z`) : new Date(r.mtime_ms)),
  // Without a recorded direction the text says North and `heading` is null.
  compass: compassText(r.direction ?? 0),
  interactive: r.interactive === 1,
  geometry: { type: 'Point', coordinates: [r.lon, r.lat] },
  image: mediaUrl(signer, base, MEDIA_PATH.search, r.id, 'image'),
  thumbnail: mediaUrl(signer, base, MEDIA_PATH.search, r.id, 'thumb'),
  heading: r.direction,
  capture_date_known: r.taken_at !== null,
  description: r.description,
  ...(distanceMeters !== undefined ? { distance_meters: distanceMeters } : {}),
  // Not in the spec: lines of text read in the photo that hold a word of the query.
  ...(textSeen?.length ? { text_seen: textSeen } : {}),
});
