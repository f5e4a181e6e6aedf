import type { Catalog, Layer } from '../../catalog/catalog';
import { UPLOADS } from '../../catalog/kinds/uploads';
import type { UploadFeature } from '../../uploads';
import type { Source } from '../source';
import { numericValue } from '../source';
import { pointCandidates } from './points';
import { shapeOf, type Plan } from '../plan';

/**
 * Uploaded files as a temporary layer of the question: items are feature numbers, their point
 * layer (representative points, indexed) answers the spatial calls, and their geometry (a route,
 * an area) is what distances are measured to.
 */
export function uploadSource(features: readonly UploadFeature[], layer: Layer, catalog: Catalog): Source<number> {
  const regionOf = new Map(catalog.countries.rows.map((r) => [r.cca2, r.region]));
  // Columns are looked at only when a question needs them: a 300,000-row upload's scan is not free.
  let keys: string[] | undefined;
  const columns = () => {
    if (keys) return keys;
    const seen = new Set<string>();
    for (const f of features) for (const k in f.attributes) seen.add(k);
    return (keys = [...seen]);
  };
  let numeric: string[] | undefined;
  const points = pointCandidates(layer);
  const pointLike = features.every((f) => f.geometry.type === 'Point');
  const every = async () => features.map((_, i) => i);
  return {
    label: UPLOADS.label.many,
    populated: false,
    columns,
    numericColumns: () =>
      (numeric ??= columns().filter((k) => features.some((f) => f.attributes[k] !== undefined) && features.every((f) => f.attributes[k] === undefined || f.attributes[k] === '' || Number.isFinite(numericValue(f.attributes[k]))))),
    ...points,
    // A route or an area is indexed by one point of it: the candidates are then every feature, and the exact tests decide.
    ...(!pointLike && { inBox: every, within: every, nearest: every }),
    // Uploads come in file order, which is their own order.
    all: every,
    inCountry: async (cca2) => features.flatMap((f, i) => (f.country === cca2 ? [i] : [])),
    geometry: (i) => features[i]!.geometry,
    region: (i) => regionOf.get(features[i]!.country) ?? '',
    attributes: (i) => features[i]!.attributes,
    pointLike,
    compare: (a, b) => a - b,
    conditionColumns: () => [columns()],
    modifiers: (chosen) => {
      const except = (chosen as Plan).uploadsExcept;
      return except ? (i) => shapeOf(features[i]!.geometry) !== except : undefined;
    },
  };
}
