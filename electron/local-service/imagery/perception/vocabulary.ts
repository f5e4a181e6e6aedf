import { singularForms } from '../../vocabulary/phrases';
import { foldText } from '../geocoder';
import type { DetectorClass } from './models';

/** A detector class the words of a query named. */
export interface NamedClass {
  label: string;
  /** The words as written in the query ("stop signs"). */
  said: string;
}

export interface ClassReading {
  classes: NamedClass[];
  /** Indexes of the words no class took. */
  rest: number[];
}

/** Longest class phrase looked for, in words ("fire hydrant", "cell phone"). */
const MAX_WORDS = 3;

/**
 * Words of stream queries that name the detector's classes: each class's label and its other
 * words from the models' data (coco-classes.json), in the plural too ("hydrants", "stop signs":
 * the last word may be a plural of the class's).
 */
export class ClassVocabulary {
  private readonly byPhrase = new Map<string, string>();

  constructor(classes: readonly DetectorClass[]) {
    for (const c of classes) {
      for (const w of [c.label, ...c.words]) {
        const key = foldText(w).split(/\s+/).join(' ');
        if (!this.byPhrase.has(key)) this.byPhrase.set(key, c.label);
      }
    }
  }

  labels(): string[] {
    return [...new Set(this.byPhrase.values())];
  }

  /** The class a phrase of folded words names, if any. */
  classOf(words: readonly string[]): string | undefined {
    const head = words.slice(0, -1);
    for (const last of singularForms(words[words.length - 1] ?? '')) {
      const label = this.byPhrase.get([...head, last].join(' '));
      if (label) return label;
    }
    return undefined;
  }

  /** Classes named by the words (folded and as written), longest phrase first, left to right. */
  read(words: readonly { text: string; folded: string }[]): ClassReading {
    const classes: NamedClass[] = [];
    const rest: number[] = [];
    for (let i = 0; i < words.length; ) {
      let took = 0;
      for (let n = Math.min(MAX_WORDS, words.length - i); n >= 1 && !took; n--) {
        const part = words.slice(i, i + n);
        const label = this.classOf(part.map((w) => w.folded));
        if (!label) continue;
        if (!classes.some((c) => c.label === label)) classes.push({ label, said: part.map((w) => w.text).join(' ') });
        took = n;
      }
      if (!took) rest.push(i);
      i += took || 1;
    }
    return { classes, rest };
  }
}
