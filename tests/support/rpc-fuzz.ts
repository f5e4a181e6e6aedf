import fc from 'fast-check';
import { methodNames, type MethodName } from '../../shared/rpc/contract';

/**
 * Inputs for fuzzing the RPC router: for every method, junk of any shape, and valid examples
 * with one part broken (a value replaced by junk, a key removed or added, a wrong container).
 * Paths are kept under `scratch`: the router runs as root in CI containers and some methods
 * write where they are told (export destinations) or read whole trees (photo folders).
 */
export function rpcCalls(scratch: string): fc.Arbitrary<{ method: string; input: unknown }> {
  const examples = validExamples(scratch);
  const call = (method: MethodName) =>
    fc
      .oneof(
        { weight: 2, arbitrary: junk },
        { weight: 5, arbitrary: fc.constantFrom(...examples[method]).chain((ex) => broken(ex)) },
        { weight: 2, arbitrary: fc.constantFrom(...examples[method]).chain((ex) => respelled(ex)) },
      )
      .map((input) => ({ method: method as string, input: contain(input, scratch, method) }));
  return fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom(...methodNames).chain(call) },
    { weight: 1, arbitrary: fc.record({ method: strangeName, input: junk }) as fc.Arbitrary<{ method: string; input: unknown }> },
  );
}

const strangeName = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'app.info ', 'APP.INFO', 'app', '.', ''),
  fc.constantFrom(...methodNames).map((m) => m + '\u0000'),
  // Not strings at all: a transport hands over whatever JSON the caller sent.
  fc.constantFrom<unknown>(42, null, true, [], ['app.info'], { toString: 1 }, { toString: 'app.info' }, { valueOf: null }),
);

/** Values that break assumptions: sizes, encodings, numbers at their limits, prototype keys. */
const edge = fc.constantFrom<unknown>(
  '', ' ', '\u0000', '\ud800', '\u202e', 'a'.repeat(70_000), '../../../../etc/passwd', '%2e%2e%2f', '__proto__',
  'http://169.254.169.254/latest', 'file:///etc/passwd', 'javascript:alert(1)', -1, 0, -0, 0.5, 1e308, -1e308,
  2 ** 53, -(2 ** 31), null, true, false, [], {}, [[[[[]]]]], JSON.parse('{"__proto__": {"polluted": true}}'), { constructor: 1 },
);

export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: edge },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), edge, { maxKeys: 4 }) },
);

type Path = (string | number)[];

function paths(v: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** A copy of `root` with the value at `path` changed by `f` (undefined removes it). */
function edit(root: unknown, path: Path, f: (old: unknown) => unknown): unknown {
  if (path.length === 0) return f(root);
  const copy = clone(root) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  const next = f(parent[last]);
  if (next === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = next;
  return copy;
}

const OPS = ['replace', 'remove', 'extra', 'wrap', 'stringify', 'double'] as const;

/** One valid example with one thing wrong. */
function broken(example: unknown): fc.Arbitrary<unknown> {
  const ps = paths(example);
  return fc.tuple(fc.constantFrom(...ps), fc.constantFrom(...OPS), junk, fc.string({ maxLength: 10 })).map(([path, op, value, key]) =>
    edit(example, path, (old) => {
      switch (op) {
        case 'replace':
          return value;
        case 'remove':
          return undefined;
        case 'extra':
          return old && typeof old === 'object' && !Array.isArray(old) ? { ...old, [key || 'extra']: value } : [old, value];
        case 'wrap':
          return [old];
        case 'stringify':
          return JSON.stringify(old) ?? 'undefined';
        case 'double':
          return typeof old === 'number' ? old * 1e12 : typeof old === 'string' ? old.repeat(600) : old;
      }
    }),
  );
}

/** A valid example with its strings replaced by random text: mostly valid, sometimes not. */
function respelled(example: unknown): fc.Arbitrary<unknown> {
  const strings = paths(example).filter((p) => typeof p.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], example) === 'string');
  if (!strings.length) return fc.constant(example);
  return fc.tuple(fc.constantFrom(...strings), fc.string({ unit: 'binary', maxLength: 300 })).map(([path, s]) => edit(example, path, () => s));
}

/** Absolute paths of the path-taking methods moved under the scratch folder (see rpcCalls). */
function contain(input: unknown, scratch: string, method: MethodName): unknown {
  const inside = (p: unknown) => (typeof p === 'string' && p.trim().startsWith('/') ? scratch + p.trim() : p);
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const o = { ...(input as Record<string, unknown>) };
  if (method === 'export.start' && 'destination' in o) o['destination'] = inside(o['destination']);
  if (method === 'photos.setFolders' && Array.isArray(o['folders'])) o['folders'] = o['folders'].map(inside);
  if (method === 'layers.import' && 'path' in o) o['path'] = inside(o['path']);
  if (method === 'evidence.verify' && 'path' in o) o['path'] = inside(o['path']);
  if ((method === 'pack.create' || method === 'pack.open') && 'path' in o) o['path'] = inside(o['path']);
  return o;
}

/** Inputs each method accepts (one or more), as a caller would send them. */
function validExamples(scratch: string): Record<MethodName, unknown[]> {
  const none = [{}];
  return {
    'app.info': none,
    'connection.active': none,
    'profiles.list': none,
    'profiles.save': [
      { label: 'Field office', baseUrl: 'http://127.0.0.1:9/', searchBaseUrl: 'http://127.0.0.1:9/search' },
      { id: 'local', label: 'Renamed', baseUrl: 'https://example.test', searchBaseUrl: 'https://example.test' },
    ],
    'profiles.delete': [{ id: 'p1' }, { id: 'local' }],
    'profiles.select': [{ id: 'local' }, { id: 'p1' }],
    'keys.set': [{ profileId: 'local', kind: 'bearer', key: 'abcdefgh12345678' }, { profileId: 'p1', kind: 'search', key: 'k'.repeat(40) }],
    'keys.delete': [{ profileId: 'p1', kind: 'bearer' }],
    'keys.backend': none,
    'keys.unlock': [{ passphrase: 'correct horse battery' }],
    'keys.status': [{ profileId: 'local' }],
    'keys.test': [{ profileId: 'local', kind: 'search' }],
    'export.chooseDestination': [{ format: 'csv', suggestedName: 'airports' }],
    'export.start': [
      { selection: { queryIds: ['1'] }, format: 'geojson' },
      { selection: { queryIds: ['1', '2'] }, format: 'gpkg', destination: `${scratch}/out.gpkg` },
    ],
    'export.cancel': [{ jobId: 'job-1' }],
    'export.estimate': [{ selection: { queryIds: ['1'] }, format: 'qfield', project: { basemap: { kind: 'none' } } }],
    'compute.run': [
      { request: { query: 'airports in Malta', limit: 3 } },
      { request: { query: 'cities near my sites', limit: 2 }, attachments: [{ field: 'files', name: 'sites.csv', dataBase64: Buffer.from('name,lat,lon\nA,35.9,14.5\n').toString('base64') }] },
      { request: { query: 'largest cities in Japan', limit: 2, answer: false }, runId: 'run-1' },
    ],
    'compute.cancel': [{ runId: 'run-1' }],
    'stream.run': [{ request: { query: 'sample', limit: 2 } }],
    'stream.cancel': [{ runId: 'run-1' }],
    'imagery.search': [{ request: { query: 'Paris' } }],
    'imagery.cancel': [{ runId: 'run-1' }],
    'service.health': none,
    'history.list': [{}, { text: 'airports', limit: 5, bbox: [-10, 30, 20, 60] }, { kind: 'compute', from: 0, to: 2 ** 41 }],
    'history.get': [{ id: 1 }],
    'history.thread': [{ id: 1 }],
    'history.rerun': [{ id: 1 }],
    'history.delete': [{ id: 2 }],
    'cache.stats': none,
    'cache.vacuum': none,
    'cache.tile': [{ z: 0, x: 0, y: 0 }, { z: 7, x: 67, y: 43 }],
    'cache.tileCount': none,
    'places.labels': [{}, { minPopulation: 100_000 }],
    'places.find': [{ text: 'Lyon, France' }, { text: 'France' }, { text: '45.76, 4.83' }],
    'media.get': [{ url: 'http://127.0.0.1:9/media/x.jpg' }],
    'photos.status': none,
    'photos.setFolders': [{ folders: [] }, { folders: [scratch] }],
    'photos.perception': [{ action: 'cancel' }, { action: 'resume' }],
    'photos.setDetection': [{ folder: scratch, on: false }, { folder: scratch, on: true }],
    'uploads.preview': [
      { name: 'sites.csv', dataBase64: Buffer.from('name,lat,lon\nA,45.7,4.8\n').toString('base64') },
      { name: 'points.geojson', dataBase64: Buffer.from('{"type":"FeatureCollection","features":[]}').toString('base64') },
      { name: 'sites.csv', stagedId: 'attachment-1' },
    ],
    'uploads.stageStart': [{ name: 'sites.csv', size: 40 }],
    'uploads.stageChunk': [{ stagedId: 'attachment-1', offset: 0, dataBase64: Buffer.from('name,lat,lon\n').toString('base64') }],
    'uploads.stageDrop': [{ stagedId: 'attachment-1' }],
    'layers.list': none,
    'layers.import': [{ path: `${scratch}/town.geojson` }, { path: `${scratch}/region.osm.pbf`, name: 'Region' }, { uploadId: 'layer-upload-1' }],
    'layers.cancel': [{ jobId: 'layer-upload-1' }],
    'layers.remove': [{ id: '1' }],
    'layers.pick': none,
    'layers.uploadStart': [{ name: 'sites.geojson', size: 40 }],
    'layers.uploadChunk': [{ uploadId: 'layer-upload-1', offset: 0, dataBase64: Buffer.from('{"type":"FeatureCollection"').toString('base64') }],
    'layers.features': [{ id: '1' }, { id: '1', limit: 10 }],
    'layers.basemapTile': [{ z: 16, x: 34263, y: 22946 }, { z: 3, x: 1, y: 2 }],
    'settings.get': none,
    'settings.save': [{ coordinateFormat: 'mgrs' }, {}],
    'evidence.create': [{ queryId: 1 }],
    'evidence.verify': [{ path: `${scratch}/bundle.zip` }, { dataBase64: Buffer.from('PK not a zip').toString('base64') }],
    'evidence.key': none,
    'queue.list': none,
    'queue.add': [{ request: { query: 'airports in Malta', limit: 3 } }],
    'queue.edit': [{ id: 1, query: 'airports in Gozo' }],
    'queue.drop': [{ id: 1 }],
    'history.compare': [{ oldId: 1, newId: 2 }, { oldId: 1, newId: 2, toleranceMetres: 5 }],
    'imagery.facing': [{ lon: 2.29, lat: 48.86 }, { lon: 2.29, lat: 48.86, radiusMetres: 1000, toleranceDeg: 30 }],
    'pack.estimate': [{ area: { bbox: [2.2, 48.8, 2.4, 48.9] } }, { area: { polygon: [[2.2, 48.8], [2.4, 48.8], [2.3, 48.9]] }, maxTileZoom: 3 }],
    'pack.create': [{ selection: { area: { bbox: [2.2, 48.8, 2.4, 48.9] } }, path: '/packs/area.gpkg' }],
    'pack.cancel': [{ jobId: 'no-such-job' }],
    'pack.open': [{ path: '/packs/none.gpkg' }],
  };
}
