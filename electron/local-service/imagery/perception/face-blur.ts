import { readModels } from './models';
import { createDetectorPool, type DetectorPool } from './pool';

export interface FaceBlurService {
  /** The face detector, id@version. */
  model: string;
  /** A copy of the JPEG with every face found hidden, and how many there were. */
  blur(jpeg: Uint8Array): Promise<{ bytes: Uint8Array; faces: number }>;
  close(): Promise<void>;
}

/**
 * Faces hidden before images leave the laptop (evidence bundles, packs, exports): one detector
 * worker, started on the first image and idle (unref'd) between them.
 */
export function createFaceBlur(modelsDir: string): FaceBlurService {
  const models = readModels(modelsDir);
  let pool: DetectorPool | null = null;
  return {
    model: `${models.faces.id}@${models.faces.version}`,
    async blur(jpeg) {
      pool ??= createDetectorPool({ models, workers: 1 });
      const out = await pool.blurFaces(jpeg);
      return { bytes: out.bytes, faces: out.faces.length };
    },
    async close() {
      await pool?.close();
    },
  };
}
