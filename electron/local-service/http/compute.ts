import { randomUUID } from 'node:crypto';
import { readFile as readBytes, rm } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComputeResponse } from '../../../shared/service/compute';
import type { Logger } from '../../ground/logger';
import type { Catalog } from '../catalog/catalog';
import type { PointIndexer } from '../catalog/index-worker';
import type { SavedSet } from '../query/item';
import { parseQuery } from '../query/parse';
import { createTypoReader } from '../query/typos';
import { uploadWords } from '../query/upload-words';
import type { Measurement } from '../query/plan';
import { readingOf } from '../query/reading';
import { refusalProblem, refusalText, UnreadQuestion } from '../query/refusal';
import type { ResultStore } from '../result-store';
import { packItemsSliced, type SavedSearch, type StoredFile } from '../store';
import { createSlicer, locateUpload, printableName, UploadError, UploadReport, UploadSet, type Slicer } from '../uploads';
import type { UploadParser } from '../upload/parse-pool';
import { createSlots } from '../upload/slots';
import { sendProblem } from './problem';
import { LayerNotFoundError, type LayerStore } from '../layers/store/layer-store';
import type { VocabularyProvider } from '../vocabulary/provider';
import { loadNameHeaders } from '../vocabulary/header-words';
import { answerPlan, refusalOf } from './compute-layers';
import { Invalid, readBody, validate, type ReceiptLimits } from './compute-body';
import { NearPlaces } from '../query/layers/address';
import { unusedFilesWarning } from '../query/unused-files';
import type { PhotoDetections } from '../query/sources/detections';

/** Header that makes answer generation fail for this request (the documented fault switch). */
export const ANSWER_FAULT_HEADER = 'x-fieldlens-answer-fault';

export interface ComputeDeps {
  catalog: Catalog;
  logger: Logger;
  store: ResultStore;
  clock: () => Date;
  answerFault: () => boolean;
  /** Builds the indexes of large uploads off the request thread. */
  indexer: PointIndexer;
  /** Reads uploaded files (large ones on worker threads, a bounded number at once). */
  parser: UploadParser;
  /** Requests whose uploads are read and answered at once (default 1); the others wait, their files on disk. */
  uploadRequestsAtOnce?: number;
  /** Data layers and their vocabulary (absent: the built-in kinds only). */
  layers?: { store: () => LayerStore; vocabulary: VocabularyProvider };
  /** The photos' detections (the imagery plugin's), read when a question asks for photos by what is seen in them. */
  photos?: () => PhotoDetections | null;
  /** Where uploaded files are written as they arrive (inside the data folder); each request removes its own. */
  uploadDir: string;
  /** Checks a multipart request before its body is read (boundary, declared size, upload budget). */
  uploadGate?: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** How multipart bodies are received (defaults: compute-body.ts). */
  receipt?: ReceiptLimits;
}

/**
 * usage.meters: 1 per request, plus 1 per 1,000 matched features, plus 0.1 per uploaded file or
 * image, plus 0.5 when a written answer was generated; rounded to 3 decimals.
 */
const viewOf = (b: readonly [number, number, number, number] | undefined) => (b ? { west: b[0], south: b[1], east: b[2], north: b[3] } : undefined);

export function meters(matched: number, uploads: number, answered: boolean): number {
  return Math.round((1 + matched / 1000 + uploads * 0.1 + (answered ? 0.5 : 0)) * 1000) / 1000;
}

export function registerCompute(app: FastifyInstance, deps: ComputeDeps): void {
  const { catalog, store } = deps;
  const near = new NearPlaces();
  const uploadSlots = createSlots(deps.uploadRequestsAtOnce ?? 1);
  // Loaded on the first upload without an English name column.
  let names: ReadonlySet<string> | undefined;
  const nameHeaders = () => (names ??= loadNameHeaders());
  const typos = createTypoReader(catalog);
  const countryCode = (lon: number, lat: number) => {
    const i = catalog.countryAt(lon, lat);
    return i >= 0 ? catalog.countries.rows[i]!.cca2 : '';
  };

  /**
   * One uploaded file's features; a file that cannot be used at all becomes a 400 naming it. The
   * set goes to `held`, which the request lets go of (spool files and all) when it ends.
   */
  const readFile = async (name: string, from: { path: string } | { bytes: Buffer }, report: UploadReport, slice: Slicer, held: UploadSet[]) => {
    try {
      const features = await deps.parser.parse(name, from, report, { slice, nameHeaders, spoolDir: deps.uploadDir });
      held.push(features);
      await locateUpload(printableName(name), features, countryCode, report, slice);
      return features;
    } catch (e) {
      if (e instanceof UploadError) throw new Invalid(400, 'Bad Request', e.message, [{ field: 'files', message: e.message }], e.code);
      // Any other failure while reading a file is still about that file, not the server.
      deps.logger.error(`local service: reading upload ${name} failed`, e);
      throw new Invalid(400, 'Bad Request', `${name}: could not be read`, [{ field: 'files', message: `${name}: could not be read` }]);
    }
  };

  /** The uploads of a saved result, read again from the stored files. */
  const readSaved = async (files: StoredFile[], slice: Slicer, held: UploadSet[]) => {
    const out: UploadSet[] = [];
    for (const f of files) {
      const bytes = await store.readUpload(f.hash);
      if (!bytes)
        throw new Invalid(409, 'Conflict', `The files of that saved query are no longer stored (${f.name}); send them again.`, [
          { field: 'search_id', message: 'uploaded files expired' },
        ]);
      out.push(await readFile(f.name, { bytes }, new UploadReport(), slice, held));
    }
    const all = UploadSet.concat(out);
    held.push(all);
    return all;
  };

  /** Files written for each request in flight, removed before its answer is sent (or when it ends otherwise). */
  const written = new WeakMap<FastifyRequest, string[]>();
  const removeWritten = async (request: FastifyRequest) => {
    const temps = written.get(request) ?? [];
    written.delete(request);
    await Promise.all(temps.map((t) => rm(t, { force: true })));
  };
  const routeHooks = {
    onRequest: deps.uploadGate ? [deps.uploadGate] : [],
    // Answered or refused: the request's files leave the disk before the client hears back.
    onSend: async (request: FastifyRequest) => void (await removeWritten(request)),
  };

  app.post('/v1/compute', routeHooks, async (request: FastifyRequest, reply: FastifyReply) => {
    const temps: string[] = [];
    written.set(request, temps);
    let release: (() => void) | null = null;
    const held: UploadSet[] = [];
    try {
      const body = await readBody(request, deps.uploadDir, temps, deps.receipt);
      const { req, extra } = validate(body);
      const warnings: unknown[] = [];
      if (extra.length) warnings.push({ code: 'unknown_fields', message: `fields not in the interface were ignored: ${extra.join(', ')}` });
      if (body.images) warnings.push({ code: 'images_unused', message: `${body.images} reference image(s) received; the local service does not search by image` });
      if (req.mode !== undefined) warnings.push({ code: 'mode_unused', message: `mode "${req.mode}" has no effect on the local service` });
      if (req.model !== 'compute') warnings.push({ code: 'model', message: `model "${req.model}" is not known; answered with compute` });

      // A team service knows the user from the key; a single-key service takes the request's user_id.
      const keyUser = request.principal?.user ?? null;
      if (keyUser !== null && req.user_id !== undefined && req.user_id !== keyUser)
        throw new Invalid(403, 'Forbidden', 'user_id must be the user of the key (or left out).', [{ field: 'user_id', message: 'not the user of this key' }]);
      const userId = keyUser ?? req.user_id ?? null;
      let parent: SavedSearch | null = null;
      if (req.search_id) {
        parent = await store.get(req.search_id);
        // Another user's saved query is answered as unknown (404, not 403): ids do not leak.
        if (parent && parent.userId !== userId) parent = null;
        if (!parent) throw new Invalid(404, 'Not Found', `No saved query with search_id ${req.search_id}.`, [{ field: 'search_id', message: 'unknown search_id' }]);
        if (parent.catalogVersion !== catalog.version)
          throw new Invalid(409, 'Conflict', 'The saved query refers to an older catalog; ask it again.', [{ field: 'search_id', message: 'saved with another catalog version' }]);
      }
      let areaCountry: string | undefined;
      if (req.area_id) {
        const ci = catalog.areaIds.get(req.area_id.toLowerCase());
        if (ci === undefined) throw new Invalid(404, 'Not Found', `No area with area_id ${req.area_id} (GET /v1/areas lists them).`, [{ field: 'area_id', message: 'unknown area_id' }]);
        areaCountry = catalog.countries.rows[ci]!.cca2;
      }

      // Features of uploads are what a request holds most of: they are read and answered a request at a time.
      if (body.files.length || parent?.files?.length) release = await uploadSlots.take();
      const report = new UploadReport();
      // One clock for the whole request: every long step below pauses on it.
      const slice = createSlicer();
      const sent: StoredFile[] = [];
      const read: UploadSet[] = [];
      for (const f of body.files) {
        sent.push({ hash: f.hash, name: f.name });
        read.push(await readFile(f.name, { path: f.path }, report, slice, held));
      }
      let uploads = UploadSet.concat(read);
      held.push(uploads);
      for (const n of body.longNames) report.truncated({ file: n.name, line: null, column: '(file name)', length: n.length });
      warnings.push(...report.warnings());
      // A saved set read back from the database names its files; their features are read again.
      // (A set this process saved moments ago holds uploads another request has let go of: read again too.)
      if (parent?.files?.length && (!parent.set.uploads.length || !parent.set.uploads.usable)) parent.set.uploads = await readSaved(parent.files, slice, held);
      if (!body.files.length && parent) uploads = parent.set.uploads;

      // A layer removed (here, or by another process before its notice arrived) while the question
      // read it: the question is read again over the layers as they are now, once.
      const asIs = warnings.length;
      // What the reader learns from the uploads' columns: the same on every attempt.
      const words = await uploadWords(uploads);
      for (let attempt = 0; ; attempt++) {
        try {
          const vocabulary = deps.layers ? await deps.layers.vocabulary.get() : undefined;
          const photos = deps.photos?.() ?? undefined;
          const fileNames = body.files.length ? body.files.map((f) => f.name) : uploads.files();
          const { values: uploadValues, numeric: uploadNumeric } = words;
          // A follow-up on layer features ("only those open now") is read together with the question
          // it continues: their saved set holds no kind items, their question holds what they were.
          // The earlier question is read up to twice below: once is enough.
          const readings = new Map<string, ReturnType<typeof parseQuery>>();
          const readAlone = (q: string) => {
            let plan = readings.get(q);
            if (!plan) readings.set(q, (plan = parseQuery(q, { vocabulary, catalog, coordinates: req.coordinates ?? [], fileNames, typos, uploadValues, uploadNumeric, detections: photos?.classes })));
            return plan;
          };
          let asked = req.query;
          // Photos by what is seen in them are continued the same way, and so are counts per polygon
          // of a layer (the answer is the polygons, whatever was counted).
          const itemsOf = (p: ReturnType<typeof parseQuery>) => p.layerSubject?.said ?? p.seen?.said ?? (p.perRef?.type === 'selection' ? `${p.subject ?? ''} per ${p.perRef.label}` : undefined);
          if (parent && vocabulary && !body.files.length && itemsOf(readAlone(parent.query))) {
            const alone = readAlone(req.query);
            if ((!itemsOf(alone) || alone.impliedSubject) && alone.subject === null && !alone.ignored.length) {
              asked = `${parent.query} ${req.query}`;
              warnings.push({ code: 'context', message: `read as a follow-up of "${parent.query}": "${asked}"` });
            } else warnings.push({ code: 'context', message: `the earlier results are "${itemsOf(readAlone(parent.query))}"; this question names its own subject, so it searched anew` });
          }
          const continuesLayers = asked !== req.query || (parent !== null && vocabulary !== undefined && itemsOf(readAlone(parent.query)) !== undefined);
          // What the earlier question measured from: a follow-up's bare distance is measured from it.
          const earlier = parent && !continuesLayers ? readAlone(parent.query) : undefined;
          const earlierRef = earlier?.within?.reference ?? earlier?.distanceRef;
          const savedReference = earlierRef && earlierRef.type !== 'saved' ? earlierRef : undefined;
          const plan = parseQuery(asked, {
            vocabulary,
            detections: photos?.classes,
            typos,
            uploadValues,
            uploadNumeric,
            catalog,
            coordinates: req.coordinates ?? [],
            fileNames,
            savedSubject: parent && !continuesLayers ? parent.set.subject : undefined,
            savedReference,
            view: viewOf(req.view_bbox),
          });
          if (plan.invalid) throw new Invalid(400, 'Bad Request', `The question could not be read: ${plan.invalid}.`, [{ field: 'query', message: plan.invalid }]);
          if (req.measurement) plan.measurement = req.measurement as Measurement;
          if (plan.notRead.length) throw new UnreadQuestion(refusalOf(plan, catalog, vocabulary, uploads, parent && !continuesLayers ? parent.set.subject : undefined));
          const reading = readingOf(plan, catalog, plan.subject ?? (parent && !continuesLayers ? parent.set.subject : undefined));
          const readingWarning = { code: 'plan', message: `read as: ${reading.text}`, reading };
          const mentioned = new Set(
            [plan.within?.reference, plan.distanceRef].flatMap((r) => (r?.type === 'points' ? r.points.map((p) => p.label) : [])),
          );
          const coordinates = (req.coordinates ?? [])
            .filter((c) => !mentioned.has(c.name))
            .map((c) => ({ lon: c.longitude, lat: c.latitude, label: c.name, site: true as const }));
          const cells = req.h3_ids === undefined ? [] : Array.isArray(req.h3_ids) ? req.h3_ids : [req.h3_ids];

          const fault = deps.answerFault() || /^(1|true|yes)$/i.test(String(request.headers[ANSWER_FAULT_HEADER] ?? ''));
          const answerOf = (write: () => string): ComputeResponse['answer'] =>
            !req.answer
              ? { status: 'skipped', content: null, error: null }
              : fault
                ? { status: 'failed', content: null, error: { code: 'answer_generation_failed', message: 'Answer generation failed (fault switch on); results are intact.' } }
                : { status: 'complete', content: write(), error: null };

          const savedSubject = parent && !continuesLayers ? parent.set.subject : undefined;
          const run = await answerPlan({
            plan,
            catalog,
            layers: deps.layers && { store: deps.layers.store, vocabulary },
            now: deps.clock(),
            coordinates,
            uploads,
            cells,
            areaCountry,
            limit: req.limit,
            near,
            saved: continuesLayers ? undefined : parent?.set,
            savedSubject,
            photos,
            work: { slice, indexer: deps.indexer },
          });
          // A line measured from ("along the Lenne") goes with its step of the reading, for the map to draw.
          for (const l of run.referenceLines) {
            const step = reading.relations.find((x) => x.reference === l.label && !x.line);
            if (step) step.line = l.line;
          }
          warnings.push(readingWarning, ...run.warnings);
          const unused = continuesLayers ? null : unusedFilesWarning(plan, uploads, body.files.map((f) => f.name));
          if (unused) warnings.push(unused);

          const id = randomUUID();
          // Layer features are no kind items: the saved record keeps the question, which a follow-up reads again.
          const set: SavedSet = run.set ?? { subject: catalog.kinds.fallback, items: [], uploads: new UploadSet() };
          // The saved set refers to the files its uploads came from; each is stored once per content.
          const files = !set.uploads.length
            ? []
            : body.files.length && set.uploads === uploads
              ? sent
              : set.uploads === parent?.set.uploads
                ? (parent.files ?? [])
                : [];
          if (files === sent) for (let k = 0; k < sent.length; k++) await store.keepUpload(sent[k]!.hash, await readBytes(body.files[k]!.path));
          const packed = await packItemsSliced(set.items, slice, catalog.kinds.codes);
          store.save(
            {
              files,
              id,
              createdAt: deps.clock().toISOString(),
              userId,
              query: run.set ? req.query : asked,
              parentId: parent?.id ?? null,
              catalogVersion: catalog.version,
              set,
            },
            packed,
          );

          const features = run.features;
          const answer = answerOf(() => `${run.write()} Read as: ${run.set ? readingOf(plan, catalog, run.subject).text : reading.text}.`);

          const response: ComputeResponse = {
            id,
            query: req.query,
            answer,
            results: { type: 'FeatureCollection', numberMatched: run.matched, numberReturned: features.length, features },
            warnings,
            usage: { meters: meters(run.matched, body.files.length + body.images, answer.status === 'complete') },
          };
          await store.settled();
          return reply.code(200).send(response);
        } catch (e) {
          if (!(e instanceof LayerNotFoundError) || !deps.layers) throw e;
          if (attempt > 0) throw new Invalid(409, 'Conflict', `Layers were removed while the question was answered (${e.layerId}); ask it again.`, [{ field: 'query', message: 'a layer it read was removed meanwhile' }]);
          warnings.length = asIs;
          deps.layers.vocabulary.invalidate();
        }
      }
    } catch (e) {
      if (e instanceof Invalid) return sendProblem(reply, e.status, e.title, e.detail, e.errors, e.code ? { code: e.code } : undefined);
      if (e instanceof UnreadQuestion) {
        const r = e.refusal;
        const errors = r.unread.map((u) => ({ field: 'query', message: `"${u.words}": ${u.why}` }));
        return sendProblem(reply, 422, 'Unprocessable Content', refusalText(r), errors, refusalProblem(r));
      }
      throw e;
    } finally {
      for (const s of held) s.dispose();
      release?.();
      // Cut off, or failed past this handler: the files go all the same.
      if (written.has(request)) void removeWritten(request);
    }
  });

  app.get('/v1/areas', async () => ({
    areas: [...catalog.areaIds].map(([area_id, i]) => {
      const r = catalog.countries.rows[i]!;
      return { area_id, name: r.name, cca2: r.cca2, cca3: r.cca3 };
    }),
  }));
}
