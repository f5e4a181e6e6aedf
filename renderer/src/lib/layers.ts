import { acceptOf, labelTextOf, LAYER_READERS, layerFormatLabel } from '../../../shared/formats';
import type { LayerFormat, LayerImportProgress } from '../../../shared/rpc/methods/layers';
import { formatBytes, formatInt } from './format';

export const FORMAT_LABELS = Object.fromEntries(LAYER_READERS.map((id) => [id, layerFormatLabel(id)])) as Record<LayerFormat, string>;

/** What the file chooser offers (the same suffixes the service reads). */
export const LAYER_FILE_ACCEPT = acceptOf('layer');

/** The kinds of data layer in words. */
export const LAYER_KINDS = labelTextOf('layer');

/** A layer's extent as "W 8.5010, S 47.2965 – E 8.5400, N 47.3235" (degrees, 4 decimals: about 10 m). */
export function bboxText(bbox: readonly [number, number, number, number] | null): string {
  if (!bbox) return 'none (no features)';
  const [w, s, e, n] = bbox.map((v) => v.toFixed(4));
  return `W ${w}, S ${s} – E ${e}, N ${n}`;
}

const PHASES: Record<LayerImportProgress['phase'], string> = {
  uploading: 'Sending the file',
  reading: 'Reading features',
  indexing: 'Building the spatial index',
};

/** The line under the progress bar: the phase, how far, and features so far. */
export function progressText(p: Pick<LayerImportProgress, 'phase' | 'done' | 'total' | 'unit' | 'features'>): string {
  const amount = (n: number) => (p.unit === 'bytes' ? formatBytes(n) : formatInt(n));
  const how = p.total ? `${amount(p.done)} of ${amount(p.total)}` : amount(p.done);
  const features = p.phase === 'uploading' ? '' : `, ${formatInt(p.features)} features`;
  return `${PHASES[p.phase]}: ${how}${features}`;
}
