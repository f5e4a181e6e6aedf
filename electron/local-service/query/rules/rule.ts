import type { Reader } from '../reader';

/** A reading rule: what it reads at token i goes into the plan; it returns the tokens used, or 0. */
export type Rule = (r: Reader, i: number) => number;
