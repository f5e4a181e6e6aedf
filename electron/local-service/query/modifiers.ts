import type { KindLayer } from '../catalog/kinds/registry';
import { modifierValue, type ModifierValues } from './plan';

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
