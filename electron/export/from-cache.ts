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
  return async (selection) => {
    if (selection.compare) return [compareLayer(cache, selection.queryIds, selection.compare.toleranceMetres, profile)];
    return selection.queryIds.map((idText): ExportLayer => {
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
  };
}

/** The changes between two entries as one layer of features with a `change` (and `moved_m`) field. */
function compareLayer(cache: Cache, ids: string[], toleranceMetres: number, profile: ProfileLookup): ExportLayer {
  const [oldId, newId] = ids.map(Number) as [number, number];
  const a = cache.get(oldId);
  const b = cache.get(newId);
  if (!a || !b) throw new RpcError('NOT_FOUND', `No cached query with id ${a ? newId : oldId}`);
  const d = cache.placeDiff(oldId, newId, toleranceMetres);
  const p = profile(b.profileId);
  const provenance: LayerProvenance = {
    queryText: `${b.queryText} (changes since entry ${oldId})`,
    kind: b.kind,
    remoteId: b.remoteId,
    searchId: b.searchId,
    time: new Date(b.startedAt),
    profileLabel: p?.label ?? b.profileId,
    baseUrl: p?.baseUrl ?? '',
    searchBaseUrl: p?.searchBaseUrl ?? '',
  };
  // Written as GeoJSON features whatever the entries' kind, so every row keeps its geometry.
  return { kind: 'compute', name: `changes ${oldId} to ${newId}`, provenance, count: d.features.length, features: d.features as never[] };
}
