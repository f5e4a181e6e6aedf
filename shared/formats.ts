/**
 * The file formats the app reads and writes, in one table: every suffix list, file picker,
 * dialog filter, error text, help text and MIME type is derived from it, so they cannot disagree
 * (as GDAL's driver registry is the one place a format is declared).
 */

/** The readers of data layers, by the id stored with each layer. */
export const LAYER_READERS = ['osm-pbf', 'osm-xml', 'gpkg', 'shapefile', 'kml', 'gpx', 'flatgeobuf', 'geojson'] as const;
export type LayerReaderId = (typeof LAYER_READERS)[number];

/** The readers of files attached to a question. */
export const UPLOAD_READERS = ['geojson', 'csv'] as const;
export type UploadReaderId = (typeof UPLOAD_READERS)[number];

/** What an export can be written as. */
export const EXPORT_WRITERS = ['gpkg', 'geojson', 'ndjson', 'csv', 'qgz', 'qfield'] as const;
export type ExportWriterId = (typeof EXPORT_WRITERS)[number];

export interface FileFormat {
  id: string;
  label: string;
  /** Lower case with the dot, the longest first where one ends another (.osm.pbf before .pbf). */
  suffixes: readonly string[];
  /** The first is the one to send. */
  mime: readonly string[];
  /** Its reader as a data layer, if it can be one. */
  layer?: LayerReaderId;
  /** Its reader as a file attached to a question, if it can be one. */
  upload?: UploadReaderId;
  /** One GeoJSON object per line (read line by line). */
  lines?: boolean;
  /** The export written as a file of this format, if any. */
  written?: ExportWriterId;
}

export const FILE_FORMATS: readonly FileFormat[] = [
  { id: 'osm-pbf', label: 'OSM PBF', suffixes: ['.osm.pbf', '.pbf'], mime: ['application/vnd.openstreetmap.data+pbf'], layer: 'osm-pbf' },
  { id: 'osm-xml', label: 'OSM XML', suffixes: ['.osm'], mime: ['application/vnd.openstreetmap.data+xml'], layer: 'osm-xml' },
  { id: 'gpkg', label: 'GeoPackage', suffixes: ['.gpkg'], mime: ['application/geopackage+sqlite3'], layer: 'gpkg', written: 'gpkg' },
  { id: 'shapefile', label: 'Shapefile', suffixes: ['.shp'], mime: ['application/vnd.shp'], layer: 'shapefile' },
  { id: 'kml', label: 'KML', suffixes: ['.kml'], mime: ['application/vnd.google-earth.kml+xml'], layer: 'kml' },
  { id: 'gpx', label: 'GPX', suffixes: ['.gpx'], mime: ['application/gpx+xml'], layer: 'gpx' },
  { id: 'flatgeobuf', label: 'FlatGeobuf', suffixes: ['.fgb'], mime: ['application/flatgeobuf'], layer: 'flatgeobuf' },
  {
    id: 'geojson',
    label: 'GeoJSON',
    suffixes: ['.geojson', '.json'],
    mime: ['application/geo+json', 'application/json'],
    layer: 'geojson',
    upload: 'geojson',
    written: 'geojson',
  },
  {
    id: 'geojson-seq',
    label: 'Newline-delimited GeoJSON',
    suffixes: ['.geojsonl', '.geojsons', '.ndjson', '.jsonl'],
    mime: ['application/geo+json-seq'],
    layer: 'geojson',
    lines: true,
    written: 'ndjson',
  },
  {
    id: 'csv',
    label: 'CSV',
    suffixes: ['.csv', '.tsv', '.txt'],
    mime: ['text/csv', 'text/tab-separated-values', 'text/plain'],
    upload: 'csv',
    written: 'csv',
  },
  { id: 'qgz', label: 'QGIS project', suffixes: ['.qgz'], mime: ['application/zip'], written: 'qgz' },
  { id: 'zip', label: 'ZIP', suffixes: ['.zip'], mime: ['application/zip'], written: 'qfield' },
];

export type FormatRole = 'layer' | 'upload';

const inRole = (role: FormatRole) => FILE_FORMATS.filter((f) => f[role] !== undefined);

/** The format of a file by its name's suffix, among those of a role (any format when absent). */
export function formatOfFile(name: string, role?: FormatRole): FileFormat | null {
  const lower = name.toLowerCase();
  for (const f of role ? inRole(role) : FILE_FORMATS) if (f.suffixes.some((s) => lower.endsWith(s))) return f;
  return null;
}

/** Every suffix of a role, in table order. */
export const suffixesOf = (role: FormatRole): string[] => inRole(role).flatMap((f) => f.suffixes);

/** A file input's `accept`: the suffixes and, for uploads, the MIME types a browser may give instead. */
export const acceptOf = (role: FormatRole): string =>
  [...new Set([...suffixesOf(role), ...(role === 'upload' ? inRole(role).flatMap((f) => f.mime) : [])])].join(',');

/** A desktop dialog's filter extensions: without the dot, each once (.osm.pbf is offered as pbf). */
export const dialogExtensionsOf = (role: FormatRole): string[] => [...new Set(suffixesOf(role).map((s) => s.split('.').pop()!))];

/** The suffixes of a role in words, e.g. ".osm.pbf, .osm, .gpkg, …, .geojsonl/.geojsons/.ndjson/.jsonl". */
export const suffixTextOf = (role: FormatRole): string => inRole(role).map((f) => f.suffixes.join('/')).join(', ');

/** The formats of a role by name, e.g. "OSM PBF, OSM XML, GeoPackage, …". */
export const labelTextOf = (role: FormatRole): string => inRole(role).map((f) => f.label).join(', ');

/** Label of a data layer's stored reader id. */
export const layerFormatLabel = (id: LayerReaderId): string => FILE_FORMATS.find((f) => f.layer === id)!.label;

/** The MIME type to send a file of this name as, or null for a suffix of no format. */
export const mimeOfFile = (name: string): string | null => formatOfFile(name)?.mime[0] ?? null;

/** The file suffix an export is written with, without the dot (gpkg, geojsonl, zip, …). */
export const exportExtension = (id: ExportWriterId): string => FILE_FORMATS.find((f) => f.written === id)!.suffixes[0]!.slice(1);
