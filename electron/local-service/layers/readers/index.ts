import { stat } from 'node:fs/promises';
import { LayerFileError, type LayerReader } from '../types';
import { flatgeobufReader } from './flatgeobuf';
import { geojsonReader } from './geojson';
import { gpkgReader } from './gpkg';
import { gpxReader, kmlReader } from './kml-gpx';
import { osmPbfReader } from './osm-pbf';
import { osmXmlReader } from './osm-xml';
import { shapefileReader } from './shapefile';

const BY_SUFFIX: [RegExp, LayerReader][] = [
  [/\.osm\.pbf$|\.pbf$/i, osmPbfReader],
  [/\.osm$/i, osmXmlReader],
  [/\.gpkg$/i, gpkgReader],
  [/\.shp$/i, shapefileReader],
  [/\.kml$/i, kmlReader],
  [/\.gpx$/i, gpxReader],
  [/\.fgb$/i, flatgeobufReader],
  [/\.(geo)?json$|\.geojsonl$|\.geojsons$|\.ndjson$|\.jsonl$/i, geojsonReader],
];

export const SUPPORTED_SUFFIXES = '.osm.pbf, .osm, .gpkg, .shp, .kml, .gpx, .fgb, .geojson/.json, .geojsonl';

/** The reader for a file by its name, after checking that it exists and is not empty. */
export async function readerFor(file: string): Promise<LayerReader> {
  const hit = BY_SUFFIX.find(([re]) => re.test(file));
  if (!hit) throw new LayerFileError(file, `unsupported file type; layers can be ${SUPPORTED_SUFFIXES}`);
  let size: number;
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new LayerFileError(file, 'not a file');
    size = s.size;
  } catch (e) {
    if (e instanceof LayerFileError) throw e;
    throw new LayerFileError(file, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `cannot be read (${(e as Error).message})`);
  }
  if (size === 0) throw new LayerFileError(file, 'the file is empty (0 bytes)');
  return hit[1];
}
