import type { RpcClient } from '../../../shared/rpc/client';
import type { PlaceFound, PlaceLabel } from '../../../shared/rpc/methods/places';

/** Basemap tiles from the Node side: the street basemap's vector tiles and the raster tiles opened from area packs. */
export function createBasemapService(rpc: RpcClient) {
  return {
    /** Countries and cities to name on the offline basemap (null when the call failed). */
    async places(): Promise<{ countries: PlaceLabel[]; cities: PlaceLabel[] } | null> {
      const r = await rpc.call('places.labels', {});
      return r.ok ? r.value : null;
    },
    /** A place a reading names, as the built-in catalog holds it (null when it holds none). */
    async findPlace(text: string): Promise<PlaceFound | null> {
      const r = await rpc.call('places.find', { text });
      return r.ok ? r.value : null;
    },
    /** How many pack tiles the cache holds and their deepest zoom (null when the call failed). */
    async packedCount(): Promise<{ count: number; maxZoom: number | null } | null> {
      const r = await rpc.call('cache.tileCount', {});
      return r.ok ? r.value : null;
    },
    /** One pack tile as base64 (null where none is held); a failed call throws, for the map to mark the tile failed. */
    async packedTile(z: number, x: number, y: number): Promise<string | null> {
      const r = await rpc.call('cache.tile', { z, x, y });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.dataBase64;
    },
    /** One tile as base64 (null where none is made); a failed call throws, for the map to mark the tile failed. */
    async streetTile(z: number, x: number, y: number): Promise<string | null> {
      const r = await rpc.call('layers.basemapTile', { z, x, y });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.dataBase64;
    },
  };
}
export type BasemapService = ReturnType<typeof createBasemapService>;
