import type { Geometry } from 'geojson';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { UploadSet } from '../upload/set';
import { shapeOf, type Plan, type Warning } from './plan';

/**
 * The files sent with a question that no part of its reading uses ("airports in France" with a
 * CSV attached; "my sites inside my polygon" uses both): a warning naming them, else null.
 */
export function unusedFilesWarning(plan: Plan, uploads: UploadSet, fileNames: readonly string[]): Warning | null {
  if (!fileNames.length) return null;
  const used = new Set<string>();
  // Without a subject of its own the question searches the uploads (see subjectOf).
  const subjectUploads = plan.subject === UPLOADS.name || (plan.subject === null && !plan.layerSubject && !plan.seen);
  const refs = [plan.inside, plan.outside, plan.intersecting, plan.within?.reference, plan.distanceRef, plan.perRef];
  // Per file and geometry type, not per row: millions of rows hold a handful of types.
  for (const [file, types] of uploads.typesByFile()) {
    for (const type of types) {
      const shape = shapeOf({ type } as Geometry);
      if (subjectUploads && (!plan.uploadsExcept || shape !== plan.uploadsExcept)) used.add(file);
      if (refs.some((r) => r?.type === 'class' && r.kind === UPLOADS.name && (!r.shape || r.shape === shape))) used.add(file);
    }
  }
  // A file that held no feature is named by the upload report already.
  const held = new Set(uploads.files());
  const unused = fileNames.filter((n) => !used.has(n) && held.has(n));
  if (!unused.length) return null;
  return { code: 'unused_files', message: `not used by the question: ${unused.join(', ')}; the answer does not depend on ${unused.length > 1 ? 'them' : 'it'}`, files: unused };
}
