import Papa from 'papaparse';
import type { Geometry } from '../../shared/service/geojson';
import { GPKG_TYPE_NAME, toWkt } from './geometry';
import { COLUMNS, flatRecords, ID_COLUMN, syncRecords, type Cell, type FlatRecord } from './records';
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

/** Columns of the CSV: the fixed ones of every kind present, once each, in a stable order. */
function csvColumns(kinds: Set<LayerKind>): { header: string[]; index: Map<LayerKind, number[]> } {
  const header = ['layer', 'kind', ID_COLUMN, 'lon', 'lat', 'wkt'];
  const index = new Map<LayerKind, number[]>();
  for (const kind of ['compute', 'stream', 'imagery'] as const) {
    if (!kinds.has(kind)) continue;
    index.set(
      kind,
      COLUMNS[kind].map((c) => {
        const at = header.indexOf(c.name);
        if (at >= 0) return at;
        header.push(c.name);
        return header.length - 1;
      }),
    );
  }
  if (kinds.has('compute')) header.push('attributes');
  return { header, index };
}

const CSV_BATCH = 2000;

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
  const sink = await TextSink.create(path);
  const out: ExportedLayer[] = [];
  try {
    const csv = format === 'csv' ? csvColumns(new Set(layers.map((l) => l.kind))) : null;
    let rows: Cell[][] = [];
    const flushRows = () => {
      if (rows.length === 0) return undefined;
      const text = Papa.unparse(rows, { header: false, newline: '\r\n' }) + '\r\n';
      rows = [];
      return sink.write(text);
    };
    if (format === 'geojson') await sink.write('{"type":"FeatureCollection","features":[\n');
    if (csv) await sink.write(Papa.unparse([csv.header], { newline: '\r\n' }) + '\r\n');
    let first = true;
    for (const layer of layers) {
      let count = 0;
      const types = new Set<string>();
      const cols = csv?.index.get(layer.kind);
      await eachRecord(
        layer,
        (rec) => {
          count++;
          if (rec.geometry) types.add(GPKG_TYPE_NAME[rec.geometry.type]);
          if (csv && cols) {
            const row: Cell[] = new Array(csv.header.length).fill(null);
            const g = rec.geometry;
            row[0] = layer.name;
            row[1] = layer.kind;
            row[2] = rec.id;
            if (g?.type === 'Point') {
              row[3] = g.coordinates[0];
              row[4] = g.coordinates[1];
            } else if (g) row[5] = toWkt(g);
            for (let i = 0; i < cols.length; i++) row[cols[i]!] = rec.values[i] ?? null;
            if (layer.kind === 'compute') row[csv.header.length - 1] = JSON.stringify(rec.attributes ?? {});
            rows.push(row);
            return rows.length >= CSV_BATCH ? flushRows() : undefined;
          }
          const json = featureJson(layer.name, rec);
          if (format === 'ndjson') return sink.write(json + '\n');
          const text = first ? json : ',\n' + json;
          first = false;
          return sink.write(text);
        },
        tick,
      );
      await flushRows();
      out.push({
        name: layer.name,
        table: layer.name,
        kind: layer.kind,
        count,
        geometryType: types.size === 1 ? [...types][0]! : types.size === 0 ? 'NONE' : 'GEOMETRY',
      });
    }
    if (format === 'geojson') await sink.write('\n]}\n');
    await sink.close();
    return { bytes: sink.bytes, layers: out };
  } catch (e) {
    await sink.abandon();
    throw e;
  }
}
