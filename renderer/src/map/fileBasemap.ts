import type BaseLayer from 'ol/layer/Base';
import VectorTileLayer from 'ol/layer/VectorTile';
import WebGLTileLayer from 'ol/layer/WebGLTile';
import { transformExtent } from 'ol/proj';
import type { Extent } from 'ol/extent';
import { PMTilesRasterSource, PMTilesVectorSource } from 'ol-pmtiles';
import { FileSource, PMTiles, TileType } from 'pmtiles';
import { pmtilesStyle } from './pmtilesStyle';
import type { PlaceNamed } from './streetStyle';

export interface FileBasemap {
  layer: BaseLayer;
  kind: 'raster' | 'vector';
  /** The area the archive covers (map projection), to zoom to when it is opened. */
  extent: Extent;
  minZoom: number;
  maxZoom: number;
}

const RASTER = new Set<TileType>([TileType.Png, TileType.Jpeg, TileType.Webp, TileType.Avif]);

/**
 * A PMTiles archive the user picked, read straight from the File (no server, no upload):
 * raster tiles (PNG, JPEG, WebP, AVIF) or Mapbox vector tiles. Anything else is refused with
 * the reason, before a layer exists. A vector file's place names leave out those an overlay
 * names there (`placeNamed`).
 */
export async function openFileBasemap(file: File, placeNamed?: PlaceNamed): Promise<FileBasemap> {
  const archive = new FileSource(file);
  let header;
  try {
    header = await new PMTiles(archive).getHeader();
  } catch (e) {
    throw new Error(`${file.name} is not a PMTiles archive (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  const extent = transformExtent([header.minLon, header.minLat, header.maxLon, header.maxLat], 'EPSG:4326', 'EPSG:3857');
  const common = { properties: { name: 'basemap-file', file: file.name } };
  if (RASTER.has(header.tileType)) {
    const source = new PMTilesRasterSource({ url: archive, attributions: [file.name], tileSize: 256 });
    return { layer: new WebGLTileLayer({ source, ...common }), kind: 'raster', extent, minZoom: header.minZoom, maxZoom: header.maxZoom };
  }
  if (header.tileType === TileType.Mvt) {
    // Its options type intersects VectorTile's `url: string`; a Source is what it reads at run time.
    const source = new PMTilesVectorSource({ url: archive as unknown as string, attributions: [file.name] });
    return {
      layer: new VectorTileLayer({ source, style: pmtilesStyle(placeNamed), declutter: true, ...common }),
      kind: 'vector',
      extent,
      minZoom: header.minZoom,
      maxZoom: header.maxZoom,
    };
  }
  throw new Error(`${file.name} holds ${TileType[header.tileType] ?? 'unknown'} tiles; a basemap needs PNG, JPEG, WebP, AVIF or vector (MVT) tiles`);
}
