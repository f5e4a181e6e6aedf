import type { RpcClient } from '../../../shared/rpc/client';
import type { EventPayload, MethodInput } from '../../../shared/rpc/contract';

/** Data layers of the bundled service: listed, imported (a path or an upload in chunks), removed, read for the map. */
export function createLayerService(rpc: RpcClient) {
  return {
    list: () => rpc.call('layers.list', {}),
    /** The desktop's open dialog. */
    pick: () => rpc.call('layers.pick', {}),
    import: (from: MethodInput<'layers.import'>) => rpc.call('layers.import', from),
    uploadStart: (name: string, size: number) => rpc.call('layers.uploadStart', { name, size }),
    uploadChunk: (uploadId: string, offset: number, dataBase64: string) => rpc.call('layers.uploadChunk', { uploadId, offset, dataBase64 }),
    /** Drops an upload or cancels a running import. */
    cancel: (jobId: string) => rpc.call('layers.cancel', { jobId }),
    remove: (id: string) => rpc.call('layers.remove', { id }),
    features: (id: string) => rpc.call('layers.features', { id }),
    onProgress: (cb: (p: EventPayload<'layers.progress'>) => void) => rpc.on('layers.progress', cb),
    onDone: (cb: (d: EventPayload<'layers.done'>) => void) => rpc.on('layers.done', cb),
    onChanged: (cb: (c: EventPayload<'layers.changed'>) => void) => rpc.on('layers.changed', cb),
  };
}
export type LayerService = ReturnType<typeof createLayerService>;
