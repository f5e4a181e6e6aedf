import type { Geometry, Position } from 'geojson';
import type { BBox } from '../../layers/store/geo';
import type { Catalog, Layer } from '../../catalog/catalog';
import { UPLOADS } from '../../catalog/kinds/uploads';
import type { UploadSet } from '../../uploads';
import type { Source } from '../source';
import { pointCandidates } from './points';
import { shapeOf, type Plan } from '../plan';

/** The uploads' point layer, or how to build it (on first use). */
export type UploadLayer = Layer | (() => Promise<Layer>);

/**
 * Uploaded files as a temporary layer of the question: items are feature numbers, their point
 * layer (representative points, indexed) answers the spatial calls, and their geometry (a route,
 * an area) is what distances are measured to.
 */
export function uploadSource(features: UploadSet, layer: UploadLayer, catalog: Catalog): Source<number> {
  const regionOf = new Map(catalog.countries.rows.map((r) => [r.cca2, r.region]));
  // The columns, and which hold only numbers, were gathered as the files were read.
  const columns = () => features.columns();
  // The point index of millions of rows is hundreds of MB: built on the first spatial call only.
  let built: Promise<Layer> | null = null;
  const indexed = async () => pointCandidates(await (built ??= Promise.resolve(typeof layer === 'function' ? layer() : layer)));
  const points = {
    inBox: async (box: BBox) => (await indexed()).inBox(box),
    within: async (p: Position, km: number) => (await indexed()).within(p, km),
    nearest: async (p: Position, k: number, minKm?: number) => (await indexed()).nearest(p, k, minKm),
    position: (i: number): Position => [features.lon(i), features.lat(i)],
    country: (i: number) => features.country(i),
  };
  const pointLike = [...features.typesByFile().values()].every((types) => types.size === 1 && types.has('Point'));
  // Every row's number, 4 bytes each (millions of rows), read as a list like the kinds' byPopulation.
  const every = async () => {
    const all = new Uint32Array(features.length);
    for (let i = 0; i < all.length; i++) all[i] = i;
    return all as unknown as number[];
  };
  return {
    label: UPLOADS.label.many,
    populated: false,
    columns,
    numericColumns: () => features.stats().numericColumns(),
    ...points,
    // A route or an area is indexed by one point of it: the candidates are then every feature, and the exact tests decide.
    ...(!pointLike && { inBox: every, within: every, nearest: every }),
    // Uploads come in file order, which is their own order.
    all: every,
    inCountry: async (cca2) => {
      const out: number[] = [];
      for (let i = 0; i < features.length; i++) if (features.country(i) === cca2) out.push(i);
      return out;
    },
    geometry: (i) => features.geometry(i),
    region: (i) => regionOf.get(features.country(i)) ?? '',
    attributes: (i) => features.attributes(i),
    pointLike,
    compare: (a, b) => a - b,
    conditionColumns: () => [columns()],
    modifiers: (chosen) => {
      const except = (chosen as Plan).uploadsExcept;
      return except ? (i) => shapeOf({ type: features.type(i) } as Geometry) !== except : undefined;
    },
  };
}
