import type { Connectivity } from '../../../shared/rpc/methods/compute';
import type { LinkState } from '../api/link';

/**
 * What the app says of its connection, from two sources: the line to the host (the socket in
 * the browser host, IPC in the window) and the service's health as the host last saw it.
 * online: both answer. degraded: one of the service's two hosts (base, search) is down.
 * offline: the host or the service cannot be reached. reconnecting: not known yet (opening the
 * line again, or a probe asked for on demand).
 */
export type ConnectionState = 'online' | 'degraded' | 'offline' | 'reconnecting';

/** Why it is offline: the app host itself, the host's token, or the service behind it. */
export type OfflineCause = 'host' | 'token' | 'service' | null;

export function connectionStateOf(link: LinkState, connectivity: Connectivity | null): { state: ConnectionState; cause: OfflineCause } {
  if (link === 'closed') return { state: 'offline', cause: 'host' };
  if (link === 'unauthorized') return { state: 'offline', cause: 'token' };
  if (link === 'connecting' || connectivity === null) return { state: 'reconnecting', cause: null };
  if (!connectivity.online) return { state: 'offline', cause: 'service' };
  if (!connectivity.base || !connectivity.search) return { state: 'degraded', cause: null };
  return { state: 'online', cause: null };
}

/** Errors that only said the line was down: stale once it is back. */
export function isConnectionError(code: string): boolean {
  return code === 'OFFLINE' || code === 'NETWORK';
}
