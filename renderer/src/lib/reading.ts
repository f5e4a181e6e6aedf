import type { QuestionReading, ReadingRelation, UnreadRefusal } from '../../../shared/service/reading';
import { formatLength, METRES_PER, type Units } from '../../../shared/units';

/**
 * A reading as chips, and questions written back from chips.
 *
 * An edited reading goes back to the service as question text, composed from the steps of the
 * reading in the service's own words, and is read again like any question. The service has no
 * way to take a plan, and text keeps the one rule that matters: whatever is asked is read in full
 * or refused, never answered wider. Its reading is written so that it reads back (a test reads
 * every corpus question, writes it back from its reading and reads it again); the few step forms
 * that do not are rewritten in `say`.
 */

/** The parts of a reading, in the order the service writes them. */
export type ChipPart = 'subject' | 'area' | 'filter' | 'relation' | 'order' | 'limit' | 'measurement';

/** A number in a chip that can be changed ("500" of "within 500 m", "5" of "first 5"). */
export interface Figure {
  value: number;
}

/** A length as the chosen units say it, after the figure the question said ("(62.1 mi)"): shown, never asked. */
export interface Note {
  note: string;
}

export interface ReadingChip {
  key: string;
  part: ChipPart;
  /** The chip's words, with its figures in place (and notes of lengths in the chosen units). */
  pieces: (string | Figure | Note)[];
  /** Every part but the subject can be taken out of the question. */
  removable: boolean;
}

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

/** A figure as a person writes it, and as the service reads it: "1,000,000", "2.5". */
export const figureText = (f: Figure): string => number.format(f.value);

const isNote = (p: string | Figure | Note): p is Note => typeof p !== 'string' && 'note' in p;

/** A chip's words as asked, figures included (its notes are not part of the question). */
export const chipText = (c: ReadingChip): string =>
  c.pieces.map((p) => (typeof p === 'string' ? p : isNote(p) ? '' : figureText(p))).join('');

/** A chip's words as shown, notes included. */
export const chipLabel = (c: ReadingChip): string =>
  c.pieces.map((p) => (typeof p === 'string' ? p : isNote(p) ? p.note : figureText(p))).join('');

/** Orders that measure from a reference: without a distance relation the service cannot read them. */
const DISTANCE_ORDERS = new Set(['nearest first', 'farthest first']);
/** Relations that give each feature a distance. */
const DISTANCE_RELATION = /^(within|between|more than|at least|distance to)\b/;
const FIGURE = /\d[\d,]*(?:\.\d+)?/g;

/** Words with their figures as Figure pieces; a parenthesis (the km figure of "60 nmi (111 km)") stays words. */
function withFigures(text: string): (string | Figure)[] {
  const out: (string | Figure)[] = [];
  let depth = 0;
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && /\d/.test(ch) && (i === 0 || /[\s(]/.test(text[i - 1]!))) {
      FIGURE.lastIndex = i;
      const m = FIGURE.exec(text)!;
      const value = Number(m[0].replace(/,/g, ''));
      if (Number.isFinite(value)) {
        if (i > from) out.push(text.slice(from, i));
        out.push({ value });
        i += m[0].length;
        from = i;
        continue;
      }
    }
    i++;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/** The relation's step in the reading's words ("within 60 nmi (111 km) of Athens, Greece"). */
const relationStep = (relation: string, reference: string) =>
  `${relation}${/^(within|between|more|at least)/.test(relation) ? ' of' : ''} ${reference}`;

/**
 * The chips of a reading: one per step, figures editable where changing them keeps the step.
 * Given the units lengths are shown in, a distance said in other units keeps its figure and is
 * followed by the length in the chosen ones ("within 100 km (62.1 mi)").
 */
export function chipsOf(r: QuestionReading, units?: Units): ReadingChip[] {
  const chips: ReadingChip[] = [{ key: 'subject', part: 'subject', pieces: [r.subject], removable: false }];
  r.filters.forEach((f, i) => {
    const area = /^in /.test(f);
    // Population figures can change; an area's or a condition's numbers are part of its name.
    const pieces = /^population /.test(f) ? withFigures(f) : [f];
    chips.push({ key: `filter:${i}`, part: area ? 'area' : 'filter', pieces, removable: true });
  });
  r.relations.forEach((x, i) => {
    const area = /^(inside|outside|intersecting)$/.test(x.relation);
    const pieces = area ? [relationStep(x.relation, x.reference)] : joinRelation(x.relation, x.reference);
    chips.push({ key: `relation:${i}`, part: area ? 'area' : 'relation', pieces: units && !area ? lengthsIn(pieces, x, units) : pieces, removable: true });
  });
  if (r.order) chips.push({ key: 'order', part: 'order', pieces: [r.order], removable: true });
  if (r.top !== undefined) chips.push({ key: 'limit', part: 'limit', pieces: ['first ', { value: r.top }], removable: true });
  if (r.measurement) chips.push({ key: 'measurement', part: 'measurement', pieces: [r.measurement.replace('_', ' ')], removable: true });
  return chips;
}

/** A distance relation's pieces: its figures editable, the reference as words. */
function joinRelation(relation: string, reference: string): (string | Figure)[] {
  const pieces = withFigures(relation);
  const rest = relationStep(relation, reference).slice(relation.length);
  const tail = pieces.at(-1);
  // The relation's last words and the reference are one piece of text.
  if (typeof tail === 'string') pieces[pieces.length - 1] = tail + rest;
  else pieces.push(rest);
  return pieces;
}

/** A unit word after a figure, and the service's km figure after a unit that is not metric ("miles (483 km)"). */
const UNIT_AFTER = /^(\s+[^\s(]+)(\s*\(\d[\d,.]* (?:km|m)\))?/;

/**
 * A distance relation's pieces with each length followed by a note of it in the chosen units,
 * unless it was said in one of them. Its lengths in km are the relation's (`min_km`, `max_km`, in
 * the order the words give them); the unit a figure was said in is told by metres per unit, so no
 * list of unit words is kept here.
 */
function lengthsIn(pieces: (string | Figure)[], relation: ReadingRelation, units: Units): (string | Figure | Note)[] {
  const figures = pieces.filter((p): p is Figure => typeof p !== 'string');
  const kms = figures.length === 2 ? [relation.min_km, relation.max_km] : [relation.max_km ?? relation.min_km];
  const out: (string | Figure | Note)[] = [];
  let n = -1;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    out.push(p);
    if (typeof p === 'string') continue;
    const km = kms[++n];
    const next = pieces[i + 1];
    const m = typeof next === 'string' ? UNIT_AFTER.exec(next) : null;
    if (km === undefined || !m || !(p.value > 0)) continue;
    const perUnit = (km * 1000) / p.value;
    const chosen = [METRES_PER[units.distance], METRES_PER[units.short]].some((u) => Math.abs(perUnit / u - 1) < 0.01);
    out.push(m[1]!);
    if (!chosen) out.push({ note: ` (${formatLength(km * 1000, units)})` });
    out.push((next as string).slice(m[0].length));
    i++;
  }
  return out;
}

/**
 * One step of a reading in words the service reads back: the km figure after another unit and
 * the box's corner names dropped, "first 5" as "top 5", "distance to X" as "by distance to X".
 */
export function say(step: string): string {
  let s = step.replace(/\s*\((?:\d[\d,.]* (?:km|m)|west, south, east, north)\)/g, '');
  s = s.replace(/^first (\d+)$/, 'top $1');
  s = s.replace(/^(largest|smallest) first$/, '$1');
  // A position as hemispheres: "38.909, -9" would read as two whole numbers, not a position.
  s = s.replace(/\b(of|to) (-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)$/, (_, w: string, lat: string, lon: string) => `${w} ${hemi(lat, 'N', 'S')} ${hemi(lon, 'E', 'W')}`);
  s = s.replace(/^distance to (?:UTM )?/, 'by distance to ');
  s = s.replace(/^in (-?\d[\d.]*,-?\d[\d.]*,-?\d[\d.]*,-?\d[\d.]*)$/, 'bbox $1');
  s = s.replace(/^population ([\d,]+) to ([\d,]+)$/, 'population between $1 and $2');
  return s;
}

const hemi = (v: string, plus: string, minus: string) => (v.startsWith('-') ? `${v.slice(1)} ${minus}` : `${v} ${plus}`);

/** The question the chips ask: their steps in the reading's order. */
export function questionOf(chips: readonly ReadingChip[]): string {
  return chips.map((c) => say(chipText(c))).join(' ');
}

/**
 * The chips left when one is removed: an order by distance goes with the last relation that gave
 * distances (the service cannot rank by distance to nothing).
 */
export function withoutChip(chips: readonly ReadingChip[], key: string): ReadingChip[] {
  const rest = chips.filter((c) => c.key !== key);
  const distances = rest.some((c) => c.part === 'relation' && DISTANCE_RELATION.test(chipText(c)));
  return distances ? rest : rest.filter((c) => !(c.part === 'order' && DISTANCE_ORDERS.has(chipText(c))));
}

/** The chips with one figure changed. */
export function withFigure(chips: readonly ReadingChip[], key: string, index: number, value: number): ReadingChip[] {
  return chips.map((c) => {
    if (c.key !== key) return c;
    let n = -1;
    return { ...c, pieces: c.pieces.map((p) => (typeof p === 'string' || isNote(p) || ++n !== index ? p : { value })) };
  });
}

/** The figures of a chip, in order. */
export const figuresOf = (c: ReadingChip): Figure[] => c.pieces.filter((p): p is Figure => typeof p !== 'string' && !isNote(p));

/**
 * The question a refusal's reading asks without the steps that hold what was not read (the service
 * names them: a relation to an unknown place, an order the data cannot rank by); null when the
 * subject itself was not read, as nothing would be left to ask.
 */
export function questionWithoutUnread(refusal: UnreadRefusal): string | null {
  const unread = new Set(refusal.unread.flatMap((u) => (u.step ? [u.step] : [])));
  if (unread.has('subject') || refusal.plan.subject === NO_SUBJECT) return null;
  let chips = chipsOf(refusal.plan);
  for (const key of unread) chips = withoutChip(chips, key);
  // An order by distance goes with the last relation that gave distances, also when none was removed.
  return questionOf(withoutChip(chips, ''));
}

/** The service's label of a question without a subject. */
const NO_SUBJECT = '(no subject)';

/** The unread words as one phrase for the button: "runways longer than 3000 m", "a and b". */
export const unreadPhrase = (refusal: UnreadRefusal): string => refusal.unread.map((u) => u.words).join("', '");
