import type Map from 'ol/Map';
import type MapBrowserEvent from 'ol/MapBrowserEvent';
import type { EventsKey } from 'ol/events';
import type { Extent } from 'ol/extent';
import { unByKey } from 'ol/Observable';
import type ResultsLayer from './ResultsLayer';

export interface FeaturePickerOptions {
  map: Map;
  layers: readonly ResultsLayer[];
  /** Called on a click: the layer name and feature id hit, or null for empty map. */
  onPick: (hit: { layer: string; id: string } | null) => void;
  /** Called on a click on a cluster of several results: its extent, to zoom into. */
  onCluster?: (extent: Extent) => void;
  /** While this returns false (another tool owns clicks) nothing is picked. */
  enabled?: () => boolean;
}

/** Pixels around the pointer that still count as on a feature. */
const TOLERANCE = 4;

type Found = { layer: string; id: string } | { layer: string; cluster: Extent };

/** Clicks on result features become picks; the cursor says where one can be picked. */
export default class FeaturePicker {
  private readonly keys: EventsKey[];

  constructor(private readonly options: FeaturePickerOptions) {
    const { map } = options;
    const on = () => options.enabled?.() ?? true;
    this.keys = [
      map.on('singleclick', (e) => {
        if (!on()) return;
        const found = this.hitAt(e);
        if (found && 'cluster' in found) options.onCluster?.(found.cluster);
        else options.onPick(found);
      }),
      map.on('pointermove', (e) => {
        if (e.dragging) return;
        map.getTargetElement()?.classList.toggle('is-pickable', on() && this.hitAt(e) !== null);
      }),
    ];
  }

  private hitAt(e: MapBrowserEvent): Found | null {
    let found: Found | null = null;
    const resolution = this.options.map.getView().getResolution() ?? 1;
    // The selection is drawn above everything: a pick on it wins over the index's points.
    this.options.map.forEachFeatureAtPixel(
      e.pixel,
      (feature, layer) => {
        const owner = this.options.layers.find((r) => r.owns(layer));
        const hit = owner?.hitOf(feature);
        if (!owner || !hit) return false;
        found = { layer: owner.name, ...hit };
        return true;
      },
      { hitTolerance: TOLERANCE, layerFilter: (l) => this.options.layers.some((r) => r.visible && r.owns(l)) },
    );
    if (found) return found;
    for (const r of this.options.layers) {
      const hit = r.pickAt(e.coordinate, resolution, TOLERANCE);
      if (hit) return { layer: r.name, ...hit };
    }
    return null;
  }

  dispose(): void {
    unByKey(this.keys);
  }
}
