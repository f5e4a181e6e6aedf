import { z } from 'zod';
import { Position } from './geojson';

/**
 * How the bundled service read a question, as its answers carry it (a `plan` warning) and as its
 * refusals of a question not read in full carry it (422 problem+json, code `unread_question`).
 * The spec is silent on both; the renderer shows them as chips and offers the reading of the rest.
 */
export const ReadingRelation = z.object({
  /** "within 60 nmi (111 km)", "between 1 km and 2 km", "more than 100 km", "inside", "distance to". */
  relation: z.string(),
  reference: z.string(),
  min_km: z.number().optional(),
  max_km: z.number().optional(),
  /** The figure as the question said it ("60 nmi"). */
  said: z.string().optional(),
  /** The reference when it is a line ("along the Lenne"), thinned for drawing, [lon, lat]. */
  line: z.object({ type: z.literal('MultiLineString'), coordinates: z.array(z.array(Position)) }).optional(),
});
export type ReadingRelation = z.infer<typeof ReadingRelation>;

export const QuestionReading = z.object({
  subject: z.string(),
  source: z.string(),
  filters: z.array(z.string()),
  relations: z.array(ReadingRelation),
  order: z.string().optional(),
  top: z.number().int().optional(),
  measurement: z.string().optional(),
  /** The steps in one line, " · " between them. */
  text: z.string(),
});
export type QuestionReading = z.infer<typeof QuestionReading>;

/** The warning of an answer that carries its reading. */
export const ReadingWarning = z.object({ code: z.literal('plan'), message: z.string(), reading: QuestionReading });

/** Problem code of a question the service did not answer because part of it was not read. */
export const UNREAD_QUESTION = 'unread_question';

export const UnreadPart = z.object({
  words: z.string(),
  why: z.string(),
  /**
   * The step of the refusal's `plan` that holds these words, named as the reading's parts are
   * numbered: `subject`, `filter:<i>` (of `filters`), `relation:<i>` (of `relations`), `order`,
   * `measurement`. Absent when no step holds them (words no rule read).
   */
  step: z.string().regex(/^(subject|order|measurement|(filter|relation):\d+)$/).optional(),
});
export type UnreadPart = z.infer<typeof UnreadPart>;

/** The parts of a 422 refusal that say what was not read, what the data holds and how the rest was read. */
export const UnreadRefusal = z.object({
  code: z.literal(UNREAD_QUESTION),
  unread: z.array(UnreadPart).min(1),
  /** The reading, in one line (" · " between steps). */
  reading: z.string(),
  /** The reading step by step, as an answer's `plan` warning carries it; `unread[].step` names the steps not read. */
  plan: QuestionReading,
  holds: z.object({ subject: z.string(), columns: z.array(z.string()) }).optional(),
  layers: z.array(z.string()).optional(),
  builtIn: z.string().optional(),
});
export type UnreadRefusal = z.infer<typeof UnreadRefusal>;

/** The reading among an answer's warnings, when it carries one. */
export function readingOfWarnings(warnings: readonly unknown[]): QuestionReading | null {
  for (const w of warnings) {
    const r = ReadingWarning.safeParse(w);
    if (r.success) return r.data.reading;
  }
  return null;
}
