import { RpcError } from '../../shared/rpc/errors';
import { responseItems } from '../../shared/service/items';
import type { Cache } from '../cache';
import type { ExportLayer, LayerProvenance } from './types';
import type { LoadLayers } from './service';

export interface ProfileLookup {
  (profileId: string): { label: string; baseUrl: string; searchBaseUrl: string } | null;
}

/**
 * Export layers from cached queries: the features come from each response body exactly as it
 * was received, so an export holds what the analyst saw, whatever the cache indexes.
 */
export function createCacheLayerLoader(cache: Cache, profile: ProfileLookup): LoadLayers {
  return async (selection) =>
    selection.queryIds.map((idText): ExportLayer => {
      const id = Number(idText);
      const record = Number.isInteger(id) ? cache.get(id) : null;
      if (!record) throw new RpcError('NOT_FOUND', `No cached query with id ${idText}`);
      if (record.raw === null)
        throw new RpcError('NOT_FOUND', `Query ${idText} has no stored results to export (it failed)`);
      const body = JSON.parse(record.raw) as Record<string, unknown>;
      const p = profile(record.profileId);
      const provenance: LayerProvenance = {
        queryText: record.queryText,
        kind: record.kind,
        remoteId: record.remoteId,
        searchId: record.searchId,
        time: new Date(record.startedAt),
        profileLabel: p?.label ?? record.profileId,
        baseUrl: p?.baseUrl ?? '',
        searchBaseUrl: p?.searchBaseUrl ?? '',
      };
      const name = record.queryText;
      const features = responseItems(record.kind, body) as never[];
      switch (record.kind) {
        case 'compute':
          return { kind: 'compute', name, provenance, count: features.length, features };
        case 'stream':
          return { kind: 'stream', name, provenance, count: features.length, features };
        default:
          return { kind: 'imagery', name, provenance, count: features.length, features };
      }
    });
}
