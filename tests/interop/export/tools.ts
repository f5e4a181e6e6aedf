import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';
export const VALIDATE_GPKG = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py';
const MAX_BUFFER = 256 * 1024 * 1024;

export interface OgrField {
  name: string;
  type: string;
  subtype: string;
}
export interface OgrFeature {
  fid: number;
  geometry: { type: string; coordinates?: unknown; geometries?: unknown[] } | null;
  properties: Record<string, string | number | null>;
}
export interface OgrLayer {
  geometryType: string;
  count: number;
  fields: OgrField[];
  extent: [number, number, number, number] | null;
  features: OgrFeature[];
}

/** Every layer of a dataset as GDAL reads it. */
export async function readWithOgr(path: string, openOptions: string[] = []): Promise<Record<string, OgrLayer>> {
  const { stdout } = await run(PYTHON, [join(here, 'py/read_ogr.py'), path, ...openOptions], { maxBuffer: MAX_BUFFER });
  return JSON.parse(stdout) as Record<string, OgrLayer>;
}

export async function validateGpkg(path: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PYTHON, [VALIDATE_GPKG, '--extra', '--warning-as-error', path]);
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

export async function ogrinfo(args: string[]): Promise<string> {
  const { stdout } = await run('ogrinfo', args, { maxBuffer: MAX_BUFFER });
  return stdout;
}

export interface OgrinfoLayer {
  name: string;
  geometry: string;
  count: number;
  fields: Record<string, string>;
}

/** Parses `ogrinfo -so -al` output into layers with their geometry, count and field types. */
export function parseOgrinfo(text: string): OgrinfoLayer[] {
  const layers: OgrinfoLayer[] = [];
  let cur: OgrinfoLayer | null = null;
  for (const line of text.split('\n')) {
    const name = /^Layer name: (.*)$/.exec(line);
    if (name) {
      cur = { name: name[1]!, geometry: '', count: -1, fields: {} };
      layers.push(cur);
      continue;
    }
    if (!cur) continue;
    const geom = /^Geometry: (.*)$/.exec(line);
    if (geom) cur.geometry = geom[1]!;
    const count = /^Feature Count: (\d+)$/.exec(line);
    if (count) cur.count = Number(count[1]);
    const field = /^([^\s:][^:]*): ([A-Za-z0-9]+(?:\([A-Za-z]+\))?) \(/.exec(line);
    if (field && !/^(Layer SRS WKT|Extent|Data axis|FID Column|Geometry Column|Metadata|Geometry|Feature Count)$/.test(field[1]!))
      cur.fields[field[1]!] = field[2]!;
  }
  return layers;
}

export interface QgisLayer {
  name: string;
  valid: boolean;
  count: number;
  fields: string[];
  extent: [number, number, number, number];
  crs: string;
  wkbType: string;
  color: string | null;
  renderer: string | null;
  /** A categorised renderer's categories: value to [colour, drawn]. */
  categories: Record<string, [string, boolean]> | null;
  labels: boolean;
  labelField: string | null;
}

/** Loads layers in headless QGIS. */
export async function loadInQgis(path: string, layerNames: string[]): Promise<QgisLayer[]> {
  const { stdout } = await run(PYTHON, [join(here, 'py/qgis_load.py'), path, ...layerNames], {
    maxBuffer: MAX_BUFFER,
    env: { ...process.env, QT_QPA_PLATFORM: 'offscreen', XDG_RUNTIME_DIR: process.env['XDG_RUNTIME_DIR'] ?? '/tmp' },
  });
  const last = stdout.trim().split('\n').at(-1) ?? '[]';
  return JSON.parse(last) as QgisLayer[];
}
