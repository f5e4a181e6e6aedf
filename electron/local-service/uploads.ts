import { formatOfFile } from '../../shared/formats';
import { swappedWarning } from './upload/checks';
import { readCsv } from './upload/csv';
import { readGeoJson } from './upload/geojson';
import { decodeUpload, printableName } from './upload/text';
import type { ReadContext, UploadFeature } from './upload/types';
import type { UploadReport } from './upload/report';
import { UploadSet } from './upload/set';
import type { Slicer } from './upload/slice';

export { MAX_VERTICES, representativePoint } from './upload/geometry';
export { printableName } from './upload/text';
export { UploadReport } from './upload/report';
export { createSlicer, type Slicer } from './upload/slice';
export { UploadSet } from './upload/set';
export { UploadError, type ReadContext, type UploadErrorCode, type UploadFeature, type UploadWarning } from './upload/types';

/**
 * Reads an uploaded file as GeoJSON or CSV (by name, then by content), whatever its text
 * encoding. Rows that cannot be used are left out and reported in `ctx.report`; a file with no
 * usable row throws UploadError. Long work is cut into slices so other requests keep answering.
 */
export async function readUpload(givenName: string, bytes: Buffer, ctx: ReadContext): Promise<UploadFeature[]> {
  const features = await parseUpload(givenName, { ...ctx, countryAt: () => '' }, bytes);
  await locateUpload(printableName(givenName), UploadSet.of(features), ctx.countryAt, ctx.report, ctx.slice);
  return features;
}

/**
 * The reading of a file that needs nothing but its bytes (every feature's `country` left ''):
 * what a parsing worker runs.
 */
export async function parseUpload(givenName: string, ctx: ReadContext, bytes: Buffer): Promise<UploadFeature[]> {
  const fileName = printableName(givenName);
  const decoded = decodeUpload(fileName, bytes);
  const { encoding, how } = decoded;
  if (encoding)
    ctx.report.warn({ code: 'encoding', message: `${fileName} is ${encoding} (${how}); it was decoded as such`, file: fileName, encoding });
  const named = formatOfFile(fileName, 'upload')?.upload;
  const text = decoded.text;
  // A name of no upload format (or .txt) goes by its content.
  const looksJson = /^\s*[[{]/.test(text.slice(0, 1024));
  return named === 'geojson' || (looksJson && (named === undefined || fileName.toLowerCase().endsWith('.txt')))
    ? await readGeoJson(fileName, text, ctx)
    : await readCsv(fileName, text, ctx);
}

/** Each feature's country (from the catalog's polygons), in slices, then the swapped-coordinates check. */
export async function locateUpload(
  fileName: string,
  features: UploadSet,
  countryAt: ReadContext['countryAt'],
  report: UploadReport,
  slice: Slicer,
): Promise<void> {
  await features.locate(countryAt, slice);
  const swapped = swappedWarning(fileName, features, countryAt);
  if (swapped) report.warn(swapped);
}
