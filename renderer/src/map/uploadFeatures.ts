import type { UploadPreview } from '../../../shared/rpc/methods/uploads';
import type { FeatureCollectionLike } from '../lib/results';

/**
 * An uploaded file's features as the map draws them: the positions the service's reader found,
 * in file order, each named as the file names it. Ids carry the file name so two files' rows
 * never share one.
 */
export function uploadCollection(preview: UploadPreview): FeatureCollectionLike {
  return {
    type: 'FeatureCollection',
    features: preview.positions.map((p, i) => ({
      type: 'Feature',
      id: `${preview.name}#${i + 1}`,
      geometry: { type: 'Point', coordinates: [p.longitude, p.latitude] },
      properties: { name: p.name, file: preview.name },
    })),
  };
}
