import type { Catalog, Kind, Layer, PointList } from '../catalog/catalog';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { LayerStore } from '../layers/store/layer-store';
import type { UploadSet } from '../uploads';
import type { Selection } from '../vocabulary/vocabulary';
import { LAYER_ITEM, type Item, type LayerSubject, type SavedSet } from './item';
import type { Plan, Warning } from './plan';
import { holdsOf, type Holds } from './refusal';
import { CompactItems, indicesOf } from './item-list';
import type { Source } from './source';
import { catalogSource } from './sources/catalog';
import { layerSource, type LayerSource } from './sources/layer';
import { uploadSource, type UploadLayer } from './sources/upload';

/** The data layers a question may read: its subject's features, and features it relates to. */
export interface LayersInput {
  store: LayerStore;
  /** Column summaries of the layers, by layer id: what the layers hold. */
  summaries?: ReadonlyMap<string, { columns: { key: string; numeric?: boolean }[] }>;
}

/** What a plan is about: its source, how its results are named, and the earlier results it continues. */
export interface Subject<T> {
  kind: Kind;
  source: Source<T>;
  /** The source's handle of one of its items. */
  of(item: Item): T;
  /** The earlier results of this subject the question narrows, as the source's handles. */
  saved?: T[];
  /** Figures of a saved aggregate, kept with their items in follow-ups. */
  savedFigures?: Map<number, Item['a']>;
  /** Set when the subject is features of data layers. */
  layers?: LayerSubject;
  /** The uploaded features that items of the uploads index into. */
  uploads: UploadSet;
  /** What a refusal says the subject holds. */
  holds: Holds;
}

/** Items like a layer's features from a source of their own (photos showing a class, sources/detections.ts). */
export interface SeenInput {
  selection: Selection;
  source: LayerSource;
}

export interface SubjectInput {
  plan: Plan;
  catalog: Catalog;
  uploads: { features: UploadSet; layer: UploadLayer };
  saved?: SavedSet;
  layers?: LayersInput;
  seen?: SeenInput;
  /** Builds a point layer (on the worker when the work is large). */
  layerFrom(kind: Kind, points: PointList): Promise<Layer> | Layer;
}

/**
 * The subject's source: features of data layers, a kind of the catalog, or the uploaded files as
 * a layer of the question; a follow-up of the same subject continues the earlier results.
 */
export async function subjectOf(input: SubjectInput, warn: (w: Warning) => void): Promise<Subject<unknown>> {
  const { plan, catalog, saved } = input;
  const { kinds } = catalog;
  const selection = input.seen?.selection ?? plan.layerSubject;
  if (selection && (input.layers || input.seen)) {
    warn({ code: 'reading', message: `read "${selection.said}" as ${selection.reading}` });
    const source = input.seen?.source ?? layerSource({ selection, store: input.layers!.store, catalog, summaries: input.layers!.summaries, warn });
    // Said in the question's own words ("pharmacies"), not the preset's name ("Pharmacy Counter").
    const label = selection.said;
    return {
      kind: LAYER_ITEM,
      source: source as Source<unknown>,
      of: (x) => x.hit,
      layers: { selection, label, perPolygon: false },
      uploads: input.uploads.features,
      holds: { subject: label, columns: source.columns() },
    } satisfies Subject<unknown>;
  }
  let subject: Kind | null = plan.subject;
  if (saved && (subject === null || subject === saved.subject)) subject = saved.subject;
  else if (saved && subject !== saved.subject)
    warn({ code: 'context', message: `the earlier results are ${kinds.label(saved.subject).many}; this question asks for ${kinds.label(subject!).many}, so it searched anew` });
  const useSaved = saved && subject === saved.subject ? saved : undefined;
  if (subject === null) {
    subject = input.uploads.features.length ? UPLOADS.name : kinds.fallback;
    warn({ code: 'reading', message: `no subject named; searched ${subject === UPLOADS.name ? 'the uploaded features' : kinds.label(subject).many}` });
  }
  const isUploads = subject === UPLOADS.name;
  if (isUploads && !useSaved && !input.uploads.features.length)
    warn({ code: 'no_uploads', message: 'the question is about uploaded features but no files were sent' });
  const savedUploads = useSaved?.uploads ?? input.uploads.features;
  const uploads = useSaved ? savedUploads : input.uploads.features;
  // Saved uploads are read back without a layer: theirs is built here.
  const uploadsLayer = useSaved && savedUploads.length ? () => Promise.resolve(input.layerFrom(UPLOADS.name, savedUploads)) : input.uploads.layer;
  // Any name but the uploads' must be a kind of the catalog (else an error).
  const source: Source<number> = isUploads ? uploadSource(uploads, uploadsLayer, catalog) : catalogSource(kinds.get(subject), catalog);
  return {
    kind: subject,
    source: source as Source<unknown>,
    of: (x) => x.i,
    saved: useSaved && indicesOf(useSaved.items, subject),
    savedFigures: useSaved && !(useSaved.items instanceof CompactItems) && useSaved.items.some((x) => !!x.a) ? new Map([...useSaved.items].map((x): [number, Item['a']] => [x.i, x.a])) : undefined,
    uploads: isUploads ? uploads : input.uploads.features,
    // Asked only by a refusal: an upload's columns are a scan of every row.
    get holds() {
      return holdsOf(subject, catalog, isUploads ? source.columns() : [])!;
    },
  };
}
