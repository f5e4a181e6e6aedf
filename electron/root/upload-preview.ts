import { formatOfFile } from '../../shared/formats';
import { PREVIEW_POSITIONS_MAX, type UploadPreview } from '../../shared/rpc/methods/uploads';
import { createSlicer, printableName, readUpload, UploadError, UploadReport } from '../local-service/uploads';

/** Features listed in a preview; the count covers them all. */
export const PREVIEW_SAMPLE = 5;

/**
 * Reads an upload with the bundled service's own reader, so the preview shows exactly the
 * features, coordinate columns and bad lines a question would get. No country lookup is loaded
 * here, so the swapped-coordinates check is left to the service's answer.
 */
export async function previewUpload(given: string, bytes: Buffer, nameHeaders?: () => ReadonlySet<string>): Promise<UploadPreview> {
  const name = printableName(given);
  const report = new UploadReport();
  let columns: UploadPreview['columns'] = null;
  const base = { name, format: formatOfFile(name, 'upload')?.upload === 'geojson' ? ('geojson' as const) : ('csv' as const) };
  try {
    const features = await readUpload(name, bytes, {
      countryAt: () => '',
      report,
      slice: createSlicer(),
      nameHeaders,
      onColumns: (_file, c) => (columns = c),
    });
    const warnings = report.warnings();
    const bad = warnings.find((w) => w.code === 'bad_rows') as { rows?: { line: number; reason: string }[]; more?: number } | undefined;
    const rows = bad?.rows ?? [];
    return {
      ...base,
      format: columns ? 'csv' : 'geojson',
      featureCount: features.length,
      columns,
      sample: features.slice(0, PREVIEW_SAMPLE).map((f) => ({ name: f.name, longitude: f.lon, latitude: f.lat, attributes: f.attributes })),
      positions: features.slice(0, PREVIEW_POSITIONS_MAX).map((f) => ({ name: f.name, longitude: f.lon, latitude: f.lat })),
      badRows: rows.map((r) => ({ line: r.line, reason: r.reason })),
      badRowCount: rows.length + (bad?.more ?? 0),
      warnings: warnings.filter((w) => w.code !== 'bad_rows').map((w) => ({ code: w.code, message: w.message })),
      error: null,
    };
  } catch (e) {
    if (!(e instanceof UploadError)) throw e;
    const rows = report.badRowsOf(name);
    return {
      ...base,
      featureCount: 0,
      columns,
      sample: [],
      positions: [],
      badRows: rows.map((r) => ({ line: r.line, reason: r.reason })),
      badRowCount: rows.length,
      warnings: [],
      error: { code: e.code, message: e.message, line: e.line },
    };
  }
}
