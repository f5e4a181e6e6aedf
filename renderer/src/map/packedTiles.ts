import type ImageTile from 'ol/ImageTile';
import TileState from 'ol/TileState';
import TileLayer from 'ol/layer/Tile';
import XYZ from 'ol/source/XYZ';

/** Reads one cached tile's bytes as base64 (null: the cache lacks it). */
export type LoadPackedTile = (z: number, x: number, y: number) => Promise<string | null>;

/** JPEG starts with FF D8 ("/9j/" in base64); packs hold PNG or JPEG tiles. */
const mimeOf = (base64: string) => (base64.startsWith('/9j/') ? 'image/jpeg' : 'image/png');

/**
 * Basemap tiles opened from area packs, drawn from the app's cache so the map has streets
 * offline. Past the deepest packed zoom the deepest tiles are enlarged, as any XYZ layer does.
 */
export function createPackedTilesLayer(load: LoadPackedTile, maxZoom: number): TileLayer<XYZ> {
  const source = new XYZ({
    maxZoom,
    attributions: '© OpenStreetMap contributors (packed tiles)',
    // The "URL" only carries the tile's numbers to the load function below.
    tileUrlFunction: ([z, x, y]) => `${z}/${x}/${y}`,
    tileLoadFunction: (tile, src) => {
      const [z, x, y] = src.split('/').map(Number) as [number, number, number];
      load(z, x, y).then(
        (data) => {
          if (data === null) tile.setState(TileState.ERROR);
          else ((tile as ImageTile).getImage() as HTMLImageElement).src = `data:${mimeOf(data)};base64,${data}`;
        },
        () => tile.setState(TileState.ERROR),
      );
    },
  });
  return new TileLayer({ source, properties: { name: 'basemap-packed' } });
}
