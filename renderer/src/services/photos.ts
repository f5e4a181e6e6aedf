import type { RpcClient } from '../../../shared/rpc/client';

/** The photo folders of the bundled imagery catalog and looking at their photos. */
export function createPhotoService(rpc: RpcClient) {
  return {
    status: () => rpc.call('photos.status', {}),
    setFolders: (folders: string[]) => rpc.call('photos.setFolders', { folders }),
    setDetection: (folder: string, on: boolean) => rpc.call('photos.setDetection', { folder, on }),
    perception: (action: 'cancel' | 'resume') => rpc.call('photos.perception', { action }),
  };
}
export type PhotoService = ReturnType<typeof createPhotoService>;
