import type { Scene } from './extract';

/** Degrees kept free between two scenes of one layer. */
const GAP = 0.05;

const apart = (a: Scene['extent'], b: Scene['extent']) =>
  a[2] + GAP < b[0] || b[2] + GAP < a[0] || a[3] + GAP < b[1] || b[3] + GAP < a[1];

/**
 * Packs scenes into layers of at most `size`: in one layer, no two scenes come within GAP of each
 * other or share an area name, so one request's area, view or radius holds no other's features
 * (a query with no place condition sees every scene of its layer; its gold set is taken there).
 */
export function packScenes<T extends { scene: Scene }>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (const it of items) {
    const fits = batches.find(
      (b) => b.length < size && b.every((o) => apart(o.scene.extent, it.scene.extent) && !o.scene.areaNames.some((n) => it.scene.areaNames.includes(n))),
    );
    if (fits) fits.push(it);
    else batches.push([it]);
  }
  return batches;
}
