import type { FeatureLike } from 'ol/Feature';
import type { FrameState } from 'ol/Map';
import type { NamedExtent } from './overlayNames';

/**
 * The named features whose labels OpenLayers placed in a frame, read from its declutter trees
 * (every decluttered layer puts there what it drew, and leaves out what gave way): one entry per
 * feature, however many boxes its label took.
 */
export function placedLabels(frameState: FrameState | null | undefined): NamedExtent[] {
  const seen = new Set<FeatureLike>();
  const out: NamedExtent[] = [];
  for (const tree of Object.values(frameState?.declutter ?? {})) {
    for (const item of tree.all()) {
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
