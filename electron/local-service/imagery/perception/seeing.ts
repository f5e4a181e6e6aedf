import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../../ground/logger';
import { sendProblem } from '../../http/problem';
import type { ImageryStorage } from '../storage';
import { PerceptionIndexer, type PerceptionIndexerOptions } from './indexer';
import { defaultModelsDir, readModels } from './models';
import { createDetectorPool, type DetectorPool } from './pool';
import { ClassVocabulary } from './vocabulary';

/** The imagery plugin's eyes: detector workers, the indexer feeding the catalog, the classes queries name. */
export interface Seeing {
  pool: DetectorPool;
  indexer: PerceptionIndexer;
  classes: ClassVocabulary;
  close(): Promise<void>;
}

export interface SeeingOptions {
  modelsDir?: string;
  workers?: number;
  /** Folders whose photos the detectors leave alone (paths ending in the separator). */
  skip?: () => readonly string[];
  /** Opens a photo checked to be the file indexed. */
  open?: PerceptionIndexerOptions['open'];
}

/** Null (and a warning) when the models cannot be read: photos are then found by their words only. */
export function openSeeing(opts: SeeingOptions, store: ImageryStorage, logger: Logger): Seeing | null {
  try {
    const models = readModels(opts.modelsDir ?? defaultModelsDir());
    const pool = createDetectorPool({ models, workers: opts.workers });
    const indexer = new PerceptionIndexer({ store, pool, models, logger, skip: opts.skip, open: opts.open });
    return {
      pool,
      indexer,
      classes: new ClassVocabulary(models.classes),
      async close() {
        await indexer.close();
        await pool.close();
      },
    };
  } catch (err) {
    logger.warn('imagery: the photo detectors could not be set up; photos are found by their words only', { error: (err as Error).message });
    return null;
  }
}

/** POST /v1/imagery/perception/cancel | resume (Settings -> Photo folders): stop looking at photos, or go on. */
export function registerPerceptionRoutes(app: FastifyInstance, seeing: () => Seeing | null): void {
  app.post('/v1/imagery/perception/:action', async (req, reply) => {
    const s = seeing();
    const action = (req.params as { action?: string }).action;
    if (!s) return sendProblem(reply, 404, 'Not Found', 'The photo detectors do not run in this service.');
    if (action === 'cancel') s.indexer.cancel();
    else if (action === 'resume') void s.indexer.kick();
    else return sendProblem(reply, 404, 'Not Found', 'The action is cancel or resume.');
    return reply.send(s.indexer.progress());
  });
}
