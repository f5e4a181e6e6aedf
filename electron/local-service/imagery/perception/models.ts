import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** One model of resources/models/models.json. */
const ModelEntry = z.object({
  id: z.string(),
  version: z.string(),
  graph: z.string(),
  weights: z.string(),
  inputSize: z.number().int().positive(),
  minScore: z.number().min(0).max(1),
  classes: z.string().optional(),
  licence: z.string(),
  source: z.string(),
});
const Manifest = z.object({ detector: ModelEntry, faces: ModelEntry });
const Classes = z.object({ classes: z.array(z.object({ label: z.string(), words: z.array(z.string()), plates: z.boolean().optional() })) });

export type ModelEntry = z.infer<typeof ModelEntry>;

/** A detector class and the other words it is asked by ("people" for person, "bike" for bicycle). */
export interface DetectorClass {
  label: string;
  words: string[];
  /** A vehicle that carries number plates: its plate band is blurred, when asked, in images leaving the laptop. */
  plates?: boolean;
}

export interface PerceptionModels {
  dir: string;
  detector: ModelEntry;
  faces: ModelEntry;
  /** The detector's classes in its output order. */
  classes: DetectorClass[];
  /** What a stored detection names as its model: id@version (a new version re-runs every photo). */
  detectorKey: string;
}

export const defaultModelsDir = (): string => resolve('resources/models');

/** The models manifest and the detector's classes, read from the shipped data. */
export function readModels(dir: string = defaultModelsDir()): PerceptionModels {
  const manifest = Manifest.parse(JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')));
  const classesFile = manifest.detector.classes;
  if (!classesFile) throw new Error('the detector in models.json names no classes file');
  const { classes } = Classes.parse(JSON.parse(readFileSync(join(dir, classesFile), 'utf8')));
  return {
    dir,
    detector: manifest.detector,
    faces: manifest.faces,
    classes,
    detectorKey: `${manifest.detector.id}@${manifest.detector.version}`,
  };
}
