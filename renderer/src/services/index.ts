import { useLink, useRpc } from '../api/rpc';
import { createBasemapService, type BasemapService } from './basemap';
import { createCacheService, type CacheService } from './cache';
import { createConnectionService, type ConnectionService } from './connection';
import { createEvidenceService, type EvidenceService } from './evidence';
import { createExportService, type ExportService } from './exports';
import { createHistoryService, type HistoryService } from './history';
import { createLayerService, type LayerService } from './layers';
import { createMediaService, type MediaService } from './media';
import { createPackService, type PackService } from './pack';
import { createPhotoService, type PhotoService } from './photos';
import { createProfileService, type ProfileService } from './profiles';
import { createQueueService, type QueueService } from './queue';
import { createRunService, type RunService } from './runs';
import { createSettingsService, type SettingsService } from './settings';
import { createUploadService, type UploadService } from './uploads';

/**
 * What stores ask of the Node side, by domain, between them and the RPC client: a store says
 * what it wants (a run, a tile, a History entry), the service says which method carries it.
 * Built over the client the app provides, so tests hand stores a scripted client as before.
 * Stores import this, never the client (eslint.layers.js refuses it).
 */
export interface Services {
  connection: ConnectionService;
  runs: RunService;
  basemap: BasemapService;
  cache: CacheService;
  evidence: EvidenceService;
  exports: ExportService;
  history: HistoryService;
  layers: LayerService;
  media: MediaService;
  pack: PackService;
  photos: PhotoService;
  profiles: ProfileService;
  queue: QueueService;
  settings: SettingsService;
  uploads: UploadService;
}

export function useServices(): Services {
  const rpc = useRpc();
  return {
    connection: createConnectionService(rpc, useLink()),
    runs: createRunService(rpc),
    basemap: createBasemapService(rpc),
    cache: createCacheService(rpc),
    evidence: createEvidenceService(rpc),
    exports: createExportService(rpc),
    history: createHistoryService(rpc),
    layers: createLayerService(rpc),
    media: createMediaService(rpc),
    pack: createPackService(rpc),
    photos: createPhotoService(rpc),
    profiles: createProfileService(rpc),
    queue: createQueueService(rpc),
    settings: createSettingsService(rpc),
    uploads: createUploadService(rpc),
  };
}
