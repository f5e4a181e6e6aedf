import type { ComputeFeature } from '../../../shared/service/compute';
import type { Catalog, Kind } from '../catalog/catalog';
import type { LayerStore } from '../layers/store/layer-store';
import { writeAnswer } from '../query/answer';
import { pointLayerOf } from '../catalog/catalog';
import type { PointIndexer } from '../catalog/index-worker';
import { UPLOADS } from '../catalog/kinds/uploads';
import { execute, type Execution, type SavedSet } from '../query/execute';
import { toFeature } from '../query/features';
import type { NearPlaces } from '../query/layers/address';
import type { Plan, RefPoint } from '../query/plan';
import { holdsOf, refusalOfParts, type Refusal } from '../query/refusal';
import type { Vocabulary } from '../vocabulary/vocabulary';
import { DETECTION_COLUMNS, detectionSource, seenSelection, type PhotoDetections } from '../query/sources/detections';
import type { ReferenceLine } from '../query/reference-line';
import type { Slicer, UploadSet } from '../uploads';

export interface PlanAnswerInput {
  plan: Plan;
  catalog: Catalog;
  now: Date;
  coordinates: RefPoint[];
  uploads: UploadSet;
  cells: string[];
  areaCountry?: string;
  limit: number;
  /** The service's memo of "near …" addresses. */
  near?: NearPlaces;
  layers?: { store: () => LayerStore; vocabulary?: Vocabulary };
  /** The saved set a follow-up continues (absent when it is read again with its question). */
  saved?: SavedSet;
  work: { slice: Slicer; indexer: PointIndexer };
  /** Who the refusal says the earlier results were about, when they are continued. */
  savedSubject?: Kind | null;
  /** The photos' detections, when the imagery catalog has them (photos by what is seen in them). */
  photos?: PhotoDetections;
}

/**
 * The refusal of a plan with parts no rule read: the parts, the reading of the rest and what the
 * data holds — the subject's columns when a subject was read, else the subjects there are.
 */
export function refusalOf(
  plan: Plan,
  catalog: Catalog,
  vocabulary: Vocabulary | undefined,
  uploads: UploadSet,
  savedSubject?: Kind | null,
): Refusal {
  const subject = plan.subject ?? savedSubject ?? null;
  const refuse = (what: Parameters<typeof refusalOfParts>[4]) => refusalOfParts(plan, catalog, subject, plan.notRead, what);
  // Photos asked to show what the detector has no class for: what it can see (no detector here: what there is).
  if (plan.seen?.classes.length) {
    if (plan.seen.label === null) return refuse({ holds: { subject: 'classes the photo detector sees', columns: [...plan.seen.classes] } });
    return refuse({ holds: { subject: plan.seen.said, columns: [...DETECTION_COLUMNS] } });
  }
  if (plan.layerSubject?.sources.length) {
    const columns = new Set(plan.layerSubject.sources.flatMap((s) => vocabulary?.summaries.get(s.layer.id)?.columns.map((c) => c.key) ?? []));
    return refuse({ holds: { subject: plan.layerSubject.said, columns: [...columns] } });
  }
  const holds = holdsOf(subject, catalog, uploads.columns());
  if (holds) return refuse({ holds });
  return refuse({ builtIn: catalog.kinds.labels(() => true), layers: vocabulary?.layers.map((l) => l.name) ?? [] });
}

/** The plan's warnings, the execution's, and the measurement as one. */
function warningsOf(plan: Plan, ex: Execution): unknown[] {
  const warnings: unknown[] = [...plan.warnings, ...ex.warnings];
  if (ex.measurement) warnings.push({ code: 'measurement', message: `${ex.measurement.kind}: ${ex.measurement.value ?? 'n/a'} ${ex.measurement.unit}`, measurement: ex.measurement });
  return warnings;
}

/** What a plan answers, whatever its source: results, warnings, the written answer and what is saved. */
export interface PlanAnswer {
  matched: number;
  features: ComputeFeature[];
  warnings: unknown[];
  write(): string;
  /** The subject the reading line names. */
  subject: Kind | null | undefined;
  /** What a follow-up continues; null for layer features, whose question is saved and read again. */
  set: SavedSet | null;
  /** Lines the answer was measured from (a river, a street), which its reading carries for the map. */
  referenceLines: ReferenceLine[];
}

/** Runs a plan over its source (layer features, a kind, or the uploaded files) and presents the answer. */
export async function answerPlan(input: PlanAnswerInput): Promise<PlanAnswer> {
  const { plan, catalog, layers, uploads } = input;
  const seen = layers && plan.seen?.label && input.photos ? plan.seen : undefined;
  const onLayers = !!(layers && (plan.layerSubject || seen));
  const ex = await execute({
    plan,
    catalog,
    uploads: { features: uploads, layer: () => pointLayerOf(UPLOADS.name, uploads, input.work) },
    coordinates: input.coordinates,
    h3Cells: input.cells,
    areaCountry: input.areaCountry,
    saved: onLayers ? undefined : input.saved,
    now: input.now,
    layers: layers && { store: layers.store(), summaries: layers.vocabulary?.summaries },
    // Photos by what the detector saw in them: a source like a layer's features.
    seen:
      seen && input.photos
        ? { selection: seenSelection({ ...seen, label: seen.label! }), source: detectionSource(await input.photos.showing(seen.label!), catalog) }
        : undefined,
    work: input.work,
  });
  if (seen && input.photos) {
    const waiting = input.photos.waiting();
    if (waiting) ex.warnings.push({ code: 'photos_pending', message: `${waiting} photos are still to be looked at by the detector; they are in no answer until then`, photos: waiting });
  }
  return {
    matched: ex.items.length,
    features: ex.items.slice(0, input.limit).map((x) => toFeature(x, ex, catalog, ex.uploads, input.near)),
    warnings: warningsOf(plan, ex),
    write: () => writeAnswer(ex, catalog, ex.uploads, plan.within?.said),
    // Layer features are no kind items: their question is saved and read again. So are the polygons
    // of "per district" whatever was counted, with the uploads counted kept for the follow-up.
    subject: onLayers ? plan.subject : ex.subject,
    referenceLines: ex.referenceLines ?? [],
    set: onLayers ? null : ex.layers?.perPolygon ? { subject: ex.subject, items: [], uploads: ex.uploads } : { subject: ex.subject, items: ex.items, uploads: ex.uploads },
  };
}
