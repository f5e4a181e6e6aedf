import { readModels } from './models';
import { createDetectorPool, type DetectorPool } from './pool';

export interface FaceBlurService {
  /** The face detector, id@version. */
  model: string;
  /** The object detector that finds vehicles, id@version. */
  vehicles: string;
  /**
   * A copy of the JPEG with every face found hidden (with `vehicles`, the plate band of every
   * vehicle too), and how many faces and vehicles there were.
   */
  blur(jpeg: Uint8Array, opts?: { vehicles?: boolean }): Promise<{ bytes: Uint8Array; faces: number; vehicles: number }>;
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
    vehicles: models.detectorKey,
    async blur(jpeg, opts = {}) {
      // Blurring reads no text.
      pool ??= createDetectorPool({ models, workers: 1, ocr: false });
      const out = await pool.blurFaces(jpeg, { vehicles: opts.vehicles ?? false });
      return { bytes: out.bytes, faces: out.faces.length, vehicles: out.vehicles.length };
    },
    async close() {
      await pool?.close();
    },
  };
}
