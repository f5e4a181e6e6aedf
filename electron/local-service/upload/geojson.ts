import type { Geometry } from 'geojson';
import { parse as parseJsonc, printParseErrorCode, visit, type ParseError } from 'jsonc-parser';
import { Geometry as GeometrySchema } from '../../../shared/service/geojson';
import { declaredCrs, guessProjected } from './checks';
import { ADDRESS, ID, NAME, norm } from './csv';
import { JsonShape, MAX_NESTING } from '../../ground/nesting';
import { firstPosition, MAX_VERTICES, representativePoint } from './geometry';
import { cut, excerpt, MAX_LABEL, MAX_TEXT } from './text';
import { protoWarning, setOwn, UploadError, type ReadContext, type UploadFeature } from './types';

const WGS84 = 'EPSG:4326';

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Characters of the text scanned per slice of work before it is parsed. */
const SCAN_STEP = 1 << 20;

/**
 * Checks the text before it is parsed: a document nested this deep is no geodata and would
 * break what handles it next, and a feature past the vertex limit would take seconds and
 * hundreds of MB to parse and validate. The scan pauses between slices.
 */
async function checkShape(file: string, text: string, ctx: ReadContext): Promise<void> {
  const shape = new JsonShape(MAX_NESTING, MAX_VERTICES);
  for (let at = 0; at < text.length && shape.feed(text, at, Math.min(text.length, at + SCAN_STEP)); at += SCAN_STEP)
    if (ctx.slice.due()) await ctx.slice.pause();
  if (shape.tooDeep)
    throw new UploadError(file, null, `JSON nested too deeply: arrays and objects more than ${MAX_NESTING} levels deep`, 'too_deep');
  if (shape.bigMember !== -1) {
    const limit = `more than ${MAX_VERTICES.toLocaleString('en')} vertices (the limit per feature); simplify it first`;
    if (shape.bigMember === -2) throw new UploadError(file, null, `its geometry has ${limit}`, 'too_many_vertices');
    throw new UploadError(file, lineOf(text, shape.bigMemberAt), `feature ${shape.bigMember + 1}: its geometry has ${limit}`, 'too_many_vertices');
  }
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The native parser is fast but says little; jsonc-parser finds the offset for the line.
  }
  const errors: ParseError[] = [];
  try {
    parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true });
  } catch (e) {
    if (e instanceof RangeError) throw new UploadError(file, 1, 'JSON nested too deeply', 'invalid_json');
    throw e;
  }
  const e = errors[0];
  throw new UploadError(file, e ? lineOf(text, e.offset) : 1, `invalid JSON (${e ? printParseErrorCode(e.error) : 'unreadable'})`, 'invalid_json');
}

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/**
 * Line of each member of the top-level "features" array, found once on the first feature that
 * needs one: the line of an object's "type" member (else of its brace), or of any other value (a
 * number or null in the array takes its place too, so later features keep their own lines).
 */
function featureLines(text: string): (n: number) => number {
  let lines: number[] | null = null;
  return (n) => {
    if (!lines) {
      const found: number[] = [];
      lines = found;
      let depth = 0;
      let key: string | null = null;
      let featuresDepth = -1;
      const member = (line: number) => {
        if (depth === featuresDepth) found.push(line + 1);
      };
      visit(text, {
        onObjectProperty: (p, _o, _l, line) => {
          if (depth === 1) key = p;
          else if (depth === featuresDepth + 1 && p === 'type') found[found.length - 1] = line + 1;
        },
        onObjectBegin: (_o, _l, line) => {
          member(line);
          depth++;
        },
        onObjectEnd: () => void depth--,
        onArrayBegin: (_o, _l, line) => {
          member(line);
          depth++;
          if (depth === 2 && key === 'features' && featuresDepth < 0) featuresDepth = 2;
        },
        onArrayEnd: () => {
          if (depth === featuresDepth) featuresDepth = Infinity;
          depth--;
        },
        onLiteralValue: (_v, _o, _l, line) => member(line),
      });
    }
    return lines[n] ?? 1;
  };
}

/** Why a geometry does not validate, in the words a person fixing the file needs. */
function geometryProblem(geometry: unknown, issue: string | undefined): { reason: string; position?: [number, number] } {
  const p = firstPosition(geometry);
  if (p?.some((v) => typeof v === 'number' && !Number.isFinite(v)))
    return { reason: 'coordinates are out of range: not finite numbers (a value such as 1e400 is past the largest number)' };
  if (p?.some((v) => typeof v === 'string'))
    return { reason: `coordinates are strings (${excerpt(JSON.stringify(p.slice(0, 2)))}); write them as numbers` };
  if (p && typeof p[0] === 'number' && typeof p[1] === 'number' && (Math.abs(p[0]) > 180 || Math.abs(p[1]) > 90))
    return { reason: `coordinates ${excerpt(`${p[0]}, ${p[1]}`)} are outside longitude -180..180 / latitude -90..90`, position: [p[0], p[1]] };
  return { reason: `invalid geometry (${issue ?? 'bad shape'})` };
}

/** Reads GeoJSON (FeatureCollection, Feature or a bare geometry): every usable feature; the others are reported. */
export async function readGeoJson(file: string, text: string, ctx: ReadContext): Promise<UploadFeature[]> {
  const { report } = ctx;
  await checkShape(file, text, ctx);
  const doc = parseJson(file, text) as { type?: unknown; features?: unknown; geometry?: unknown; properties?: unknown; id?: unknown } | null;
  let features: unknown[];
  if (doc?.type === 'FeatureCollection') {
    if (!Array.isArray(doc.features))
      throw new UploadError(file, 1, `"features" must be an array of Feature objects, found ${kindOf(doc.features)}`, 'features_not_array');
    features = doc.features;
  } else if (doc?.type === 'Feature') features = [doc];
  else if (typeof doc?.type === 'string' && doc !== null && typeof doc === 'object' && !Array.isArray(doc))
    features = [{ type: 'Feature', geometry: doc, properties: {} }];
  else throw new UploadError(file, 1, 'not a GeoJSON object (FeatureCollection, Feature or geometry)', 'not_geojson');

  const crs = declaredCrs(doc);
  const lineOfFeature = featureLines(text);
  const out: UploadFeature[] = [];
  const { sink } = ctx;
  const add = sink ? (f: UploadFeature) => sink.add(f) : (f: UploadFeature) => void out.push(f);
  let otherNames: ReadonlySet<string> | undefined;
  let protoSeen = false;
  const otherName = (keys: string[]) => {
    otherNames ??= ctx.nameHeaders!();
    return keys.find((key) => otherNames!.has(norm(key)));
  };
  const outOfRange: [number, number][] = [];
  let unlocated = 0;
  for (let n = 0; n < features.length; n++) {
    if ((n & 63) === 63 && ctx.slice.due()) await ctx.slice.pause();
    const f = features[n] as { type?: unknown; geometry?: unknown; properties?: unknown; id?: unknown } | null;
    const bad = (reason: string) => report.badRow(file, lineOfFeature(n), `feature ${n + 1}: ${reason}`);
    if (f === null || typeof f !== 'object' || Array.isArray(f) || f.type !== 'Feature') {
      bad(`not a Feature object (found ${kindOf(f)})`);
      continue;
    }
    if (f.geometry === null || f.geometry === undefined) {
      unlocated++;
      continue;
    }
    const g = GeometrySchema.safeParse(f.geometry);
    if (!g.success) {
      const why = geometryProblem(f.geometry, g.error.issues[0]?.message);
      if (why.position) outOfRange.push(why.position);
      bad(why.reason);
      continue;
    }
    const geometry = g.data as Geometry;
    const rep = representativePoint(geometry);
    if (!rep) {
      bad('geometry has no coordinates');
      continue;
    }
    const props = f.properties && typeof f.properties === 'object' && !Array.isArray(f.properties) ? (f.properties as Record<string, unknown>) : {};
    const line = () => lineOfFeature(n);
    const attributes: Record<string, unknown> = {};
    if (!protoSeen && Object.hasOwn(props, '__proto__')) {
      protoSeen = true;
      report.warn(protoWarning(file, 'property'));
    }
    for (const [k, v] of Object.entries(props)) {
      const short = typeof v === 'string' ? cut(v, MAX_TEXT) : null;
      if (short !== null) report.truncated({ file, line: line(), column: k, length: (v as string).length });
      setOwn(attributes, k, short ?? v);
    }
    const keys = Object.keys(props);
    const label = (names: string[], fallback: string) => {
      const k = keys.find((key) => names.includes(norm(key))) ?? (names === NAME && ctx.nameHeaders ? otherName(keys) : undefined);
      const v = k !== undefined && props[k] !== null && props[k] !== undefined ? String(props[k]) : '';
      if (!v) return fallback;
      const short = cut(v, MAX_LABEL);
      if (short !== null) report.truncated({ file, line: line(), column: `${k} (as a label)`, length: v.length });
      return short ?? v;
    };
    const id = f.id !== undefined && f.id !== null ? cut(String(f.id), MAX_LABEL) ?? String(f.id) : label(ID, String(n + 1));
    add({
      id,
      file,
      name: label(NAME, `${file} #${n + 1}`),
      address: label(ADDRESS, ''),
      geometry,
      lon: rep[0],
      lat: rep[1],
      country: ctx.countryAt(rep[0], rep[1]),
      attributes,
    });
  }
  if (unlocated)
    report.warn({ code: 'null_geometry', message: `${file}: ${unlocated} feature(s) without a geometry were left out (they have no place on a map)`, file, count: unlocated });
  const projected = guessProjected(outOfRange);
  const declared = crs && crs !== WGS84 ? `the file declares ${excerpt(crs, 60)} (its "crs" member); reproject to WGS 84 longitude/latitude (EPSG:4326)` : null;
  if (!(sink ? sink.count : out.length)) {
    if (!features.length) throw new UploadError(file, null, 'the FeatureCollection has no features', 'no_usable_rows');
    if (outOfRange.length && (declared || projected)) throw new UploadError(file, null, (declared ?? projected)!, 'crs');
    if (unlocated === features.length) throw new UploadError(file, null, `none of its ${features.length} feature(s) has a geometry`, 'no_usable_rows');
    const first = report.badRowsOf(file).slice(0, 3).map((b) => `line ${b.line}: ${b.reason}`);
    throw new UploadError(file, null, `none of its ${features.length} feature(s) could be read (${first.join('; ')})`, 'no_usable_rows');
  }
  if (crs && crs !== WGS84)
    report.warn({
      code: 'crs',
      message: outOfRange.length
        ? `${file}: ${declared}`
        : `${file}: the file declares ${excerpt(crs, 60)} (its "crs" member) but its coordinates are in longitude/latitude range; they were read as WGS 84`,
      file,
      declared: crs,
    });
  else if (projected) report.warn({ code: 'crs', message: `${file}: ${outOfRange.length} feature(s) out of range: ${projected}`, file });
  return out;
}
