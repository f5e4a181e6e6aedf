import type { FeatureLike } from 'ol/Feature';
import type { FrameState } from 'ol/Map';
import type { NamedExtent } from './overlayNames';

/**
 * The named features whose labels OpenLayers placed in a frame and the view shows, read from its
 * declutter trees (every decluttered layer puts there what it drew, and leaves out what gave way;
 * labels of tiles reaching past the view's edges are there too): one entry per feature, however
 * many boxes its label took.
 */
export function placedLabels(frameState: FrameState | null | undefined): NamedExtent[] {
  const seen = new Set<FeatureLike>();
  const out: NamedExtent[] = [];
  if (!frameState) return out;
  // Declutter boxes are in the canvas's pixels.
  const [w, h] = frameState.size.map((v) => v * frameState.pixelRatio) as [number, number];
  for (const tree of Object.values(frameState.declutter ?? {})) {
    for (const item of tree.search({ minX: 0, minY: 0, maxX: w, maxY: h })) {
      const f = item.value as FeatureLike | undefined;
      if (!f || seen.has(f)) continue;
      seen.add(f);
      const name = f.get('name') as unknown;
      const extent = f.getGeometry()?.getExtent();
      if (name && extent) out.push({ name: String(name), extent });
    }
  }
  return out;
}
