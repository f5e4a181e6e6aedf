import type { RpcClient } from '../../../shared/rpc/client';

/** The street basemap's vector tiles, made by the bundled service from the OSM extracts. */
export function createBasemapService(rpc: RpcClient) {
  return {
    /** One tile as base64 (null where none is made); a failed call throws, for the map to mark the tile failed. */
    async streetTile(z: number, x: number, y: number): Promise<string | null> {
      const r = await rpc.call('layers.basemapTile', { z, x, y });
      if (!r.ok) throw new Error(r.error.message);
      return r.value.dataBase64;
    },
  };
}
export type BasemapService = ReturnType<typeof createBasemapService>;
