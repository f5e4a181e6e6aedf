import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isValidCell } from 'h3-js';
import { ComputeFormFields, ComputeRequest, type ComputeResponse } from '../../../shared/service/compute';
import type { Logger } from '../../ground/logger';
import type { Catalog } from '../catalog/catalog';
import { writeAnswer } from '../query/answer';
import { execute, makeUploadLayer, type SavedSet } from '../query/execute';
import { toFeature } from '../query/features';
import { parseQuery } from '../query/parse';
import { MEASUREMENTS, type Measurement } from '../query/plan';
import type { SearchStore } from '../store';
import { parseUpload, UploadError, type UploadFeature } from '../uploads';
import { fieldErrors, sendProblem, type FieldError } from './problem';

export const UPLOAD_LIMITS = { fileSize: 20 * 1024 * 1024, files: 10, fields: 50, fieldSize: 256 * 1024, parts: 80 };
/** Header that makes answer generation fail for this request (the documented fault switch). */
export const ANSWER_FAULT_HEADER = 'x-fieldlens-answer-fault';

export interface ComputeDeps {
  catalog: Catalog;
  logger: Logger;
  store: SearchStore;
  clock: () => Date;
  answerFault: () => boolean;
}

/** Fields of spec 2.1 (anything else is reported in warnings and ignored). */
const KNOWN_FIELDS = new Set([
  'query', 'limit', 'answer', 'user_id', 'area_id', 'coordinates', 'h3_ids', 'include_stats', 'measurement', 'mode',
  'model', 'search_id', 'files', 'images',
]);

class Invalid extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
  }
}

/**
 * usage.meters: 1 per request, plus 1 per 1,000 matched features, plus 0.1 per uploaded file or
 * image, plus 0.5 when a written answer was generated; rounded to 3 decimals.
 */
export function meters(matched: number, uploads: number, answered: boolean): number {
  return Math.round((1 + matched / 1000 + uploads * 0.1 + (answered ? 0.5 : 0)) * 1000) / 1000;
}

interface Body {
  fields: Record<string, unknown>;
  files: { name: string; bytes: Buffer }[];
  images: number;
  multipart: boolean;
}

async function readBody(req: FastifyRequest): Promise<Body> {
  if (!req.isMultipart()) {
    const b = req.body;
    if (b !== undefined && (b === null || typeof b !== 'object' || Array.isArray(b)))
      throw new Invalid(400, 'Bad Request', 'The body must be a JSON object.');
    return { fields: (b ?? {}) as Record<string, unknown>, files: [], images: 0, multipart: false };
  }
  const fields: Record<string, string | string[]> = {};
  const files: Body['files'] = [];
  let images = 0;
  for await (const part of req.parts({ limits: UPLOAD_LIMITS })) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      if (part.fieldname === 'files') files.push({ name: part.filename || `file${files.length + 1}`, bytes });
      else if (part.fieldname === 'images') images++;
      else fields[part.fieldname] = '(file)';
    } else {
      const v = String(part.value);
      const prev = fields[part.fieldname];
      fields[part.fieldname] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
  }
  return { fields, files, images, multipart: true };
}

function validate(body: Body): { req: ComputeRequest; extra: string[] } {
  const extra = Object.keys(body.fields).filter((k) => !KNOWN_FIELDS.has(k));
  const known = Object.fromEntries(Object.entries(body.fields).filter(([k]) => KNOWN_FIELDS.has(k) && k !== 'files' && k !== 'images'));
  const errors: FieldError[] = [];
  if (!body.multipart && ('files' in body.fields || 'images' in body.fields))
    errors.push({ field: 'files', message: 'files and images are sent as multipart/form-data' });
  for (const [k, v] of Object.entries(known))
    if (body.multipart && Array.isArray(v) && k !== 'h3_ids') errors.push({ field: k, message: `${k} was sent more than once` });
  const parsed = (body.multipart ? ComputeFormFields : ComputeRequest).safeParse(known);
  if (!parsed.success) errors.push(...fieldErrors(parsed.error));
  if (errors.length || !parsed.success) throw new Invalid(400, 'Bad Request', 'The request has invalid fields.', errors);
  const req = parsed.data;
  const cells = req.h3_ids === undefined ? [] : Array.isArray(req.h3_ids) ? req.h3_ids : [req.h3_ids];
  cells.forEach((c, i) => {
    if (!isValidCell(c)) errors.push({ field: Array.isArray(req.h3_ids) ? `h3_ids.${i}` : 'h3_ids', message: `"${c}" is not a valid H3 cell` });
  });
  if (req.measurement !== undefined && !MEASUREMENTS.includes(req.measurement as Measurement))
    errors.push({ field: 'measurement', message: `measurement must be one of ${MEASUREMENTS.join(', ')}` });
  if (errors.length) throw new Invalid(400, 'Bad Request', 'The request has invalid fields.', errors);
  return { req, extra };
}

export function registerCompute(app: FastifyInstance, deps: ComputeDeps): void {
  const { catalog, store } = deps;
  const countryCode = (lon: number, lat: number) => {
    const i = catalog.countryAt(lon, lat);
    return i >= 0 ? catalog.countries.rows[i]!.cca2 : '';
  };

  app.post('/v1/compute', async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const body = await readBody(request);
      const { req, extra } = validate(body);
      const warnings: unknown[] = [];
      if (extra.length) warnings.push({ code: 'unknown_fields', message: `fields not in the interface were ignored: ${extra.join(', ')}` });
      if (body.images) warnings.push({ code: 'images_unused', message: `${body.images} reference image(s) received; the local service does not search by image` });
      if (req.mode !== undefined) warnings.push({ code: 'mode_unused', message: `mode "${req.mode}" has no effect on the local service` });
      if (req.model !== 'compute') warnings.push({ code: 'model', message: `model "${req.model}" is not known; answered with compute` });

      let parent = null as ReturnType<SearchStore['get']>;
      if (req.search_id) {
        parent = store.get(req.search_id);
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

      let uploads: UploadFeature[] = [];
      for (const f of body.files) {
        try {
          uploads = uploads.concat(parseUpload(f.name, f.bytes, countryCode));
        } catch (e) {
          if (e instanceof UploadError) throw new Invalid(400, 'Bad Request', e.message, [{ field: 'files', message: e.message }]);
          // Any other failure while reading a file is still about that file, not the server.
          deps.logger.error(`local service: reading upload ${f.name} failed`, e);
          throw new Invalid(400, 'Bad Request', `${f.name}: could not be read`, [{ field: 'files', message: `${f.name}: could not be read` }]);
        }
      }
      if (!body.files.length && parent) uploads = parent.set.uploads;

      const plan = parseQuery(req.query, {
        catalog,
        coordinates: req.coordinates ?? [],
        fileNames: body.files.length ? body.files.map((f) => f.name) : [...new Set(uploads.map((u) => u.file))],
        savedSubject: parent ? parent.set.subject : undefined,
      });
      if (req.measurement) plan.measurement = req.measurement as Measurement;
      const mentioned = new Set(
        [plan.within?.reference, plan.distanceRef].flatMap((r) => (r?.type === 'points' ? r.points.map((p) => p.label) : [])),
      );
      const coordinates = (req.coordinates ?? [])
        .filter((c) => !mentioned.has(c.name))
        .map((c) => ({ lon: c.longitude, lat: c.latitude, label: c.name }));
      const cells = req.h3_ids === undefined ? [] : Array.isArray(req.h3_ids) ? req.h3_ids : [req.h3_ids];

      const ex = execute({
        plan,
        catalog,
        uploads: { features: uploads, layer: makeUploadLayer(uploads) },
        coordinates,
        h3Cells: cells,
        areaCountry,
        saved: parent?.set,
      });
      warnings.push(...plan.warnings, ...ex.warnings);
      if (ex.measurement) warnings.push({ code: 'measurement', message: `${ex.measurement.kind}: ${ex.measurement.value ?? 'n/a'} ${ex.measurement.unit}`, measurement: ex.measurement });

      const id = randomUUID();
      const set: SavedSet = { subject: ex.subject, items: ex.items, uploads: ex.uploads };
      store.save({
        id,
        createdAt: deps.clock().toISOString(),
        userId: req.user_id ?? null,
        query: req.query,
        parentId: parent?.id ?? null,
        catalogVersion: catalog.version,
        set,
      });

      const page = ex.items.slice(0, req.limit);
      const features = page.map((x) => toFeature(x, ex, catalog, ex.uploads));
      const fault = deps.answerFault() || /^(1|true|yes)$/i.test(String(request.headers[ANSWER_FAULT_HEADER] ?? ''));
      let answer: ComputeResponse['answer'];
      if (!req.answer) answer = { status: 'skipped', content: null, error: null };
      else if (fault)
        answer = { status: 'failed', content: null, error: { code: 'answer_generation_failed', message: 'Answer generation failed (fault switch on); results are intact.' } };
      else answer = { status: 'complete', content: writeAnswer(ex, catalog, ex.uploads), error: null };

      const response: ComputeResponse = {
        id,
        query: req.query,
        answer,
        results: { type: 'FeatureCollection', numberMatched: ex.items.length, numberReturned: features.length, features },
        warnings,
        usage: { meters: meters(ex.items.length, body.files.length + body.images, answer.status === 'complete') },
      };
      return reply.code(200).send(response);
    } catch (e) {
      if (e instanceof Invalid) return sendProblem(reply, e.status, e.title, e.detail, e.errors);
      throw e;
    }
  });

  app.get('/v1/areas', async () => ({
    areas: [...catalog.areaIds].map(([area_id, i]) => {
      const r = catalog.countries.rows[i]!;
      return { area_id, name: r.name, cca2: r.cca2, cca3: r.cca3 };
    }),
  }));
}
