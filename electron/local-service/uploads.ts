import { swappedWarning } from './upload/checks';
import { readCsv } from './upload/csv';
import { readGeoJson } from './upload/geojson';
import { decodeUpload, printableName } from './upload/text';
import type { ReadContext, UploadFeature } from './upload/types';

export { MAX_VERTICES, representativePoint } from './upload/geometry';
export { printableName } from './upload/text';
export { UploadReport } from './upload/report';
export { createSlicer, type Slicer } from './upload/slice';
export { UploadError, type ReadContext, type UploadErrorCode, type UploadFeature, type UploadWarning } from './upload/types';

/**
 * Reads an uploaded file as GeoJSON or CSV (by name, then by content), whatever its text
 * encoding. Rows that cannot be used are left out and reported in `ctx.report`; a file with no
 * usable row throws UploadError. Long work is cut into slices so other requests keep answering.
 */
export async function readUpload(givenName: string, bytes: Buffer, ctx: ReadContext): Promise<UploadFeature[]> {
  const fileName = printableName(givenName);
  const { text, encoding, how } = decodeUpload(fileName, bytes);
  if (encoding)
    ctx.report.warn({ code: 'encoding', message: `${fileName} is ${encoding} (${how}); it was decoded as such`, file: fileName, encoding });
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  const looksJson = /^\s*[[{]/.test(text.slice(0, 1024));
  const features =
    ext === 'geojson' || ext === 'json' || (looksJson && ext !== 'csv' && ext !== 'tsv')
      ? await readGeoJson(fileName, text, ctx)
      : await readCsv(fileName, text, ctx);
  const swapped = swappedWarning(fileName, features, ctx.countryAt);
  if (swapped) ctx.report.warn(swapped);
  return features;
}
