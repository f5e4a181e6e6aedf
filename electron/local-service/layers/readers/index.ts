import { stat } from 'node:fs/promises';
import { formatOfFile, suffixTextOf, type LayerReaderId } from '../../../../shared/formats';
import { LayerFileError, type LayerReader } from '../types';
import { flatgeobufReader } from './flatgeobuf';
import { geojsonReader } from './geojson';
import { gpkgReader } from './gpkg';
import { gpxReader, kmlReader } from './kml-gpx';
import { osmPbfReader } from './osm-pbf';
import { osmXmlReader } from './osm-xml';
import { shapefileReader } from './shapefile';

const READERS: Record<LayerReaderId, LayerReader> = {
  'osm-pbf': osmPbfReader,
  'osm-xml': osmXmlReader,
  gpkg: gpkgReader,
  shapefile: shapefileReader,
  kml: kmlReader,
  gpx: gpxReader,
  flatgeobuf: flatgeobufReader,
  geojson: geojsonReader,
};

export const SUPPORTED_SUFFIXES = suffixTextOf('layer');

/** The reader for a file by its name, after checking that it exists and is not empty. */
export async function readerFor(file: string): Promise<LayerReader> {
  const hit = formatOfFile(file, 'layer')?.layer;
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
  return READERS[hit];
}
