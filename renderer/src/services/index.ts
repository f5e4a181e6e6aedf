import { useRpc } from '../api/rpc';
import { createBasemapService, type BasemapService } from './basemap';
import { createRunService, type RunService } from './runs';

/**
 * What stores ask of the Node side, by domain, between them and the RPC client: a store says
 * what it wants (a run, a tile), the service says which method carries it. Built over the client
 * the app provides, so tests hand stores a scripted client as before.
 */
export interface Services {
  runs: RunService;
  basemap: BasemapService;
}

export function useServices(): Services {
  const rpc = useRpc();
  return { runs: createRunService(rpc), basemap: createBasemapService(rpc) };
}
