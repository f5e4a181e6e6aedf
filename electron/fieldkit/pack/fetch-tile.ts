import { RpcError } from '../../../shared/rpc/errors';
import { ONLINE_TILE_TEMPLATE } from '../../../shared/rpc/methods/pack';
import type { FetchTile } from './write';

/**
 * Basemap tiles from the online tile server, as the map fetches them. The server's usage policy
 * asks for an identifying User-Agent; PACK_MAX_TILES keeps a pack far from a bulk download.
 */
export function createTileFetcher(fetchImpl: typeof fetch, userAgent: string, template = ONLINE_TILE_TEMPLATE): FetchTile {
  return async (z, x, y, signal) => {
    const url = template.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y));
    let res: Response;
    try {
      res = await fetchImpl(url, { signal, headers: { 'User-Agent': userAgent } });
    } catch (e) {
      if (signal.aborted) throw e;
      throw new RpcError('NETWORK', `Basemap tile ${z}/${x}/${y} could not be fetched: ${(e as Error).message}`);
    }
    if (!res.ok) throw new RpcError('HTTP', `Basemap tile ${z}/${x}/${y}: the tile server answered ${res.status}`);
    const type = res.headers.get('content-type') ?? '';
    if (!/^image\/(png|jpeg)/.test(type)) throw new RpcError('HTTP', `Basemap tile ${z}/${x}/${y} is not a PNG or JPEG image (${type || 'no type'})`);
    return Buffer.from(await res.arrayBuffer());
  };
}
