import { createRequire } from 'node:module';

/**
 * The OSMHeader block of a PBF file, decoded with the protobuf schemas osm-pbf-parser ships
 * (`lib/parsers.js`). Data blocks are decoded on worker threads (pbf-workers.ts).
 */

interface HeaderBlock {
  required_features: string[];
}

const require = createRequire(import.meta.url);
const parsers = require('osm-pbf-parser/lib/parsers.js') as {
  osm: { HeaderBlock: { decode(b: Buffer): HeaderBlock } };
};

const SUPPORTED_FEATURES = new Set(['OsmSchema-V0.6', 'DenseNodes']);

/** The features an OSMHeader block requires that this reader cannot honour (e.g. HistoricalInformation). */
export function unsupportedFeatures(data: Buffer): string[] {
  return parsers.osm.HeaderBlock.decode(data).required_features.filter((f) => !SUPPORTED_FEATURES.has(f));
}
