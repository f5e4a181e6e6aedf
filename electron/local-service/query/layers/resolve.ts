import type { Geometry } from 'geojson';
import type { Catalog } from '../../catalog/catalog';
import { UPLOADS } from '../../catalog/kinds/uploads';
import type { BBox } from '../../layers/store/geo';
import type { LayerInfo, LayerStore, ScanOptions, StoredFeature } from '../../layers/store/layer-store';
import type { UploadSet } from '../../uploads';
import { classPredicate } from '../modifiers';
import { shapeOf, type Reference, type UploadShape, type Warning } from '../plan';
import { piecesOf } from './ref-index';

/** A feature of a data layer with the layer it came from. */
export interface LayerHit {
  f: StoredFeature;
  layer: LayerInfo;
}

/** Features read for one reference; more are not read (a warning says so). */
export const REFERENCE_LIMIT = 100_000;

export interface ResolveContext {
  /** Absent without data layers: a selection then stands for nothing. */
  store?: LayerStore;
  catalog: Catalog;
  uploads: UploadSet;
  warn: (w: Warning) => void;
}

/** The uploaded geometries of a shape (all without one), long ones in short pieces. */
export function uploadGeometries(uploads: UploadSet, shape?: UploadShape | null): Geometry[] {
  const out: Geometry[] = [];
  for (let i = 0; i < uploads.length; i++) {
    if (shape && shapeOf({ type: uploads.type(i) } as Geometry) !== shape) continue;
    for (const g of piecesOf(uploads.geometry(i))) out.push(g);
  }
  return out;
}

/** Up to `limit` features of a scan; the read stops there (the store ends its cursor). */
export async function firstOf(store: LayerStore, layerId: string, opts: ScanOptions, limit: number): Promise<StoredFeature[]> {
  const out: StoredFeature[] = [];
  if (limit <= 0) return out;
  for await (const page of store.scan(layerId, opts)) {
    for (const f of page) if (out.push(f) >= limit) return out;
  }
  return out;
}

/** The features of a selection, every layer that holds them. */
export async function selectionFeatures(ref: Extract<Reference, { type: 'selection' }>, ctx: ResolveContext): Promise<LayerHit[]> {
  const out: LayerHit[] = [];
  if (!ctx.store) return out;
  for (const s of ref.selection.sources) {
    const fs = await firstOf(ctx.store, s.layer.id, { match: s.match }, REFERENCE_LIMIT + 1);
    if (fs.length > REFERENCE_LIMIT) {
      ctx.warn({ code: 'ignored', message: `"${ref.label}" matches more than ${REFERENCE_LIMIT.toLocaleString('en')} features of "${s.layer.name}"; the first ${REFERENCE_LIMIT.toLocaleString('en')} were used` });
      fs.length = REFERENCE_LIMIT;
    }
    for (const f of fs) out.push({ f, layer: s.layer });
  }
  return out;
}

/**
 * The geometries a reference stands for, to measure distances or test relations against: points
 * of places, items of a kind (those in `near`, the box of interest), uploads, or layer features.
 * Null when the reference cannot be read here (the earlier results).
 */
export async function referenceGeometries(ref: Reference, ctx: ResolveContext, near?: BBox): Promise<Geometry[] | null> {
  switch (ref.type) {
    case 'points':
      return ref.points.map((p) => ({ type: 'Point', coordinates: [p.lon, p.lat] }));
    case 'geoms':
      return ref.geoms;
    case 'selection':
      return (await selectionFeatures(ref, ctx)).map((h) => h.f.geometry);
    case 'saved':
      return null;
    case 'class': {
      // A long uploaded route in short pieces: each is measured only where it comes near.
      if (ref.kind === UPLOADS.name) return uploadGeometries(ctx.uploads, ref.shape);
      const K = ctx.catalog.kinds.get(ref.kind);
      // "a large airport", "a city over 1 million people": the class's own modifiers and filters.
      const keep = classPredicate(ref, ctx.catalog) ?? (() => true);
      const ids = near ? K.index.range(near[0], near[1], near[2], near[3]) : Array.from({ length: K.size }, (_, i) => i);
      return ids.filter(keep).map((i) => ({ type: 'Point', coordinates: [K.lon[i]!, K.lat[i]!] }));
    }
  }
}
