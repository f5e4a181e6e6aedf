import type { RpcClient } from '../../../shared/rpc/client';

/** Files attached to a question, read by the bundled service's own reader before anything is sent. */
export function createUploadService(rpc: RpcClient) {
  return {
    preview: (name: string, dataBase64: string) => rpc.call('uploads.preview', { name, dataBase64 }),
  };
}
export type UploadService = ReturnType<typeof createUploadService>;
