import { looksPlural, singularForms } from '../../vocabulary/phrases';
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
  /** Indexes of the words each class took, in the order of `classes`. */
  took: number[][];
  /** Indexes of the words no class took. */
  rest: number[];
}

/** Plurals not made with an s (the classes' words list them). */
const IRREGULAR_PLURALS = new Set(['people', 'men', 'women', 'children']);

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

  /**
   * Classes named by the words (folded and as written), longest phrase first, left to right. A
   * class written in the singular and followed by another word (not a class, a place or a number)
   * qualifies that word, as in "car parks", "bus stops" or "bicycle lanes": it names no class there.
   */
  read(words: readonly { text: string; folded: string }[], isPlace: (folded: string) => boolean = () => false): ClassReading {
    const classes: NamedClass[] = [];
    const took: number[][] = [];
    const rest: number[] = [];
    const plain = (k: number) => {
      const w = words[k];
      return !!w && !/^\d+$/.test(w.folded) && !isPlace(w.folded) && !this.classOf([w.folded]);
    };
    for (let i = 0; i < words.length; ) {
      let taken = 0;
      for (let n = Math.min(MAX_WORDS, words.length - i); n >= 1 && !taken; n--) {
        const part = words.slice(i, i + n);
        const folded = part.map((w) => w.folded);
        const label = this.classOf(folded);
        if (!label) continue;
        const last = folded[folded.length - 1]!;
        const singular = this.byPhrase.has(folded.join(' ')) && !looksPlural(last) && !IRREGULAR_PLURALS.has(last);
        if (singular && plain(i + n)) break;
        const at = classes.findIndex((c) => c.label === label);
        const idx = Array.from({ length: n }, (_, k) => i + k);
        if (at < 0) {
          classes.push({ label, said: part.map((w) => w.text).join(' ') });
          took.push(idx);
        } else took[at]!.push(...idx);
        taken = n;
      }
      if (!taken) rest.push(i);
      i += taken || 1;
    }
    return { classes, took, rest };
  }
}
