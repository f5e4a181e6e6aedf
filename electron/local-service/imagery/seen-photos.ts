import type { DetectorClasses, PhotoDetections, SeenPhoto } from '../query/sources/detections';
import type { ImageryStorage } from './storage';

/**
 * The catalog's sightings as the question engine reads them: the photos (not videos) in which
 * the detector saw a class, each with its best sighting, read through the storage (SQLite or
 * PostgreSQL alike).
 */
export function photoDetections(store: ImageryStorage, classes: DetectorClasses, waiting: () => number = () => 0): PhotoDetections {
  return {
    classes,
    waiting,
    async showing(label) {
      return (await store.seenPhotos(label)).map(
        (r): SeenPhoto => ({ id: r.id, key: r.rowid, lon: r.lon, lat: r.lat, takenAt: r.taken_at, bearing: r.direction, ...r.sighting }),
      );
    },
  };
}
