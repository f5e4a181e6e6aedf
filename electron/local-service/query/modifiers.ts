import type { Catalog } from '../catalog/catalog';
import type { KindLayer } from '../catalog/kinds/registry';
import { UPLOADS } from '../catalog/kinds/uploads';
import { modifierValue, type ModifierValues, type Reference } from './plan';

/**
 * The kind's modifiers a reading chose, as one test per item: an item passes when its column
 * equals the modifier's value for true, and differs for false. Undefined when none was chosen.
 */
export function modifierTest(K: KindLayer, chosen: ModifierValues): ((i: number) => boolean) | undefined {
  const tests: ((i: number) => boolean)[] = [];
  for (const m of K.entry.modifiers ?? []) {
    const want = modifierValue(chosen, m.key);
    if (want === undefined) continue;
    const col = K.cols[m.column]!;
    tests.push((i) => (col[i] === m.equals) === want);
  }
  if (tests.length < 2) return tests[0];
  return (i) => tests.every((f) => f(i));
}

/** Which items of a reference class count: its modifiers ("a large airport") and its own population filter. */
export function classPredicate(ref: Extract<Reference, { type: 'class' }>, catalog: Catalog): ((i: number) => boolean) | undefined {
  if (ref.kind === UPLOADS.name) return undefined;
  const K = catalog.kinds.get(ref.kind);
  const byModifiers = modifierTest(K, ref);
  if (!K.entry.columns.population || (ref.popMin === undefined && ref.popMax === undefined)) return byModifiers;
  const pop = K.pop;
  const lo = ref.popMin ?? -Infinity;
  const hi = ref.popMax ?? Infinity;
  const byPop = (i: number) => pop[i]! >= lo && pop[i]! <= hi;
  return byModifiers ? (i) => byModifiers(i) && byPop(i) : byPop;
}
