import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import Papa from 'papaparse';
import type { Geometry } from '../../shared/service/geojson';
import { GPKG_TYPE_NAME, toWkt } from './geometry';
import { derivedCells, FieldSet, layoutColumns, type FieldLayout } from './fields';
import { COLUMNS, flatRecords, ID_COLUMN, syncRecords, type Cell, type Column, type FlatRecord } from './records';
import { TextSink } from './sink';
import type { ExportedLayer, ExportFormat, ExportLayer, LayerKind, Tick } from './types';

/** Only the members RFC 7946 defines: stray members (crs, bbox of another CRS) are dropped. */
function cleanGeometry(g: Geometry): Geometry {
  return g.type === 'GeometryCollection'
    ? { type: g.type, geometries: g.geometries.map((c) => cleanGeometry(c) as typeof c) }
    : ({ type: g.type, coordinates: g.coordinates } as Geometry);
}

function featureJson(layer: string, rec: FlatRecord): string {
  return JSON.stringify({
    type: 'Feature',
    id: rec.id,
    geometry: rec.geometry ? cleanGeometry(rec.geometry) : null,
    properties: { layer, ...rec.properties },
  });
}

async function eachRecord(layer: ExportLayer, fn: (r: FlatRecord) => Promise<void> | undefined, tick: Tick) {
  const sync = syncRecords(layer);
  const source: Iterable<FlatRecord> | AsyncIterable<FlatRecord> = sync ?? flatRecords(layer);
  for await (const rec of source) {
    const w = fn(rec);
    if (w) await w;
    const t = tick(layer.name);
    if (t) await t;
  }
}

/** The CSV columns every row starts with, before the fields of fields.ts. */
const CSV_FRAME = ['layer', 'layer_kind', ID_COLUMN, 'lon', 'lat', 'wkt'];

/** Spec fields of every kind present, once each, in a stable order; where each kind's land. */
function csvSpec(kinds: Set<LayerKind>): { spec: Column[]; index: Map<LayerKind, number[]> } {
  const spec: Column[] = [];
  const index = new Map<LayerKind, number[]>();
  for (const kind of ['compute', 'stream', 'imagery'] as const) {
    if (!kinds.has(kind)) continue;
    index.set(
      kind,
      COLUMNS[kind].map((c) => {
        const at = spec.findIndex((s) => s.name === c.name);
        if (at >= 0) return at;
        spec.push(c);
        return spec.length - 1;
      }),
    );
  }
  return { spec, index };
}

const CSV_BATCH = 2000;

/**
 * Cells a spreadsheet would run as a formula (OWASP "CSV injection"): text starting with = + - @,
 * tab or carriage return. Such cells are written with a leading ' ; numbers (stored as numbers,
 * or text such as "-12.5" that is one) are left as they are, as a spreadsheet reads them as values.
 */
export const CSV_FORMULA = /^(?![-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$)[=+\-@\t\r]/;
const CSV_OPTIONS = { newline: '\r\n', escapeFormulae: CSV_FORMULA };

/** A staged CSV row: frame cells, spec cells in csvSpec order, other properties, attributes. */
type StagedRow = [Cell[], Cell[], Record<string, unknown> | null, Record<string, unknown> | null];

/**
 * CSV in two passes, as its header needs every field (fields.ts): rows are staged as JSON lines
 * in a file beside the export, then written once the columns are known. Memory stays at one
 * batch whatever the export size.
 */
async function writeCsv(path: string, layers: readonly ExportLayer[], tick: Tick): Promise<{ bytes: number; layers: ExportedLayer[] }> {
  const stagePath = `${path}.rows`;
  const stage = await TextSink.create(stagePath);
  const out: ExportedLayer[] = [];
  try {
    const { spec, index } = csvSpec(new Set(layers.map((l) => l.kind)));
    const fields = new FieldSet(spec);
    try {
      for (const layer of layers) {
        let count = 0;
        const types = new Set<string>();
        const cols = index.get(layer.kind)!;
        await eachRecord(
          layer,
          (rec) => {
            count++;
            const g = rec.geometry;
            if (g) types.add(GPKG_TYPE_NAME[g.type]);
            const point = g?.type === 'Point';
            const frame: Cell[] = [
              layer.name,
              layer.kind,
              rec.id,
              point ? g.coordinates[0]! : null,
              point ? g.coordinates[1]! : null,
              g && !point ? toWkt(g) : null,
            ];
            const specCells: Cell[] = new Array<Cell>(spec.length).fill(null);
            for (let i = 0; i < cols.length; i++) specCells[cols[i]!] = rec.values[i] ?? null;
            fields.observe(rec.extras, rec.attributes);
            const row: StagedRow = [frame, specCells, rec.extras, rec.attributes];
            return stage.write(JSON.stringify(row) + '\n');
          },
          tick,
        );
        out.push(exported(layer, count, types));
      }
      await stage.close();
    } catch (e) {
      await stage.abandon();
      throw e;
    }
    const layout = fields.layout();
    return { bytes: await writeCsvRows(path, stagePath, layout), layers: out };
  } finally {
    await rm(stagePath, { force: true });
  }
}

async function writeCsvRows(path: string, stagePath: string, layout: FieldLayout): Promise<number> {
  const sink = await TextSink.create(path);
  try {
    const header = [...CSV_FRAME, ...layoutColumns(layout).map((c) => c.name)];
    await sink.write(Papa.unparse([header], CSV_OPTIONS) + '\r\n');
    let rows: Cell[][] = [];
    const flush = () => {
      const text = Papa.unparse(rows, { ...CSV_OPTIONS, header: false }) + '\r\n';
      rows = [];
      return sink.write(text);
    };
    const lines = createInterface({ input: createReadStream(stagePath, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      const [frame, specCells, props, attrs] = JSON.parse(line) as StagedRow;
      const row = [...frame, ...specCells];
      derivedCells(layout, props, attrs, row, row.length);
      rows.push(row);
      if (rows.length >= CSV_BATCH) await flush();
    }
    if (rows.length > 0) await flush();
    await sink.close();
    return sink.bytes;
  } catch (e) {
    await sink.abandon();
    throw e;
  }
}

function exported(layer: ExportLayer, count: number, types: Set<string>): ExportedLayer {
  return {
    name: layer.name,
    table: layer.name,
    kind: layer.kind,
    count,
    geometryType: types.size === 1 ? [...types][0]! : types.size === 0 ? 'NONE' : 'GEOMETRY',
  };
}

/**
 * GeoJSON (one RFC 7946 FeatureCollection), newline-delimited GeoJSON, or CSV. All layers go
 * into one file; each feature names its layer in a `layer` property (column).
 */
export async function writeText(
  path: string,
  format: Exclude<ExportFormat, 'gpkg'>,
  layers: readonly ExportLayer[],
  tick: Tick,
): Promise<{ bytes: number; layers: ExportedLayer[] }> {
  if (format === 'csv') return writeCsv(path, layers, tick);
  const sink = await TextSink.create(path);
  const out: ExportedLayer[] = [];
  try {
    if (format === 'geojson') await sink.write('{"type":"FeatureCollection","features":[\n');
    let first = true;
    for (const layer of layers) {
      let count = 0;
      const types = new Set<string>();
      await eachRecord(
        layer,
        (rec) => {
          count++;
          if (rec.geometry) types.add(GPKG_TYPE_NAME[rec.geometry.type]);
          const json = featureJson(layer.name, rec);
          if (format === 'ndjson') return sink.write(json + '\n');
          const text = first ? json : ',\n' + json;
          first = false;
          return sink.write(text);
        },
        tick,
      );
      out.push(exported(layer, count, types));
    }
    if (format === 'geojson') await sink.write('\n]}\n');
    await sink.close();
    return { bytes: sink.bytes, layers: out };
  } catch (e) {
    await sink.abandon();
    throw e;
  }
}
