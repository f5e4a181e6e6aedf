import type Map from 'ol/Map';
import type MapBrowserEvent from 'ol/MapBrowserEvent';
import type { EventsKey } from 'ol/events';
import { unByKey } from 'ol/Observable';
import type ResultsLayer from './ResultsLayer';

export interface FeaturePickerOptions {
  map: Map;
  layers: readonly ResultsLayer[];
  /** Called on a click: the layer name and feature id hit, or null for empty map. */
  onPick: (hit: { layer: string; id: string } | null) => void;
}

/** Clicks on result features become picks; the cursor says where one can be picked. */
export default class FeaturePicker {
  private readonly keys: EventsKey[];

  constructor(private readonly options: FeaturePickerOptions) {
    const { map } = options;
    this.keys = [
      map.on('singleclick', (e) => options.onPick(this.hitAt(e))),
      map.on('pointermove', (e) => {
        if (e.dragging) return;
        map.getTargetElement()?.classList.toggle('is-pickable', this.hitAt(e) !== null);
      }),
    ];
  }

  private hitAt(e: MapBrowserEvent): { layer: string; id: string } | null {
    let hit: { layer: string; id: string } | null = null;
    this.options.map.forEachFeatureAtPixel(
      e.pixel,
      (feature, layer) => {
        const owner = this.options.layers.find((l) => l.layer === layer);
        const id = feature.getId();
        if (!owner || id === undefined) return false;
        hit = { layer: owner.name, id: String(id) };
        return true;
      },
      { hitTolerance: 4, layerFilter: (l) => this.options.layers.some((r) => r.layer === l && l.getVisible()) },
    );
    return hit;
  }

  dispose(): void {
    unByKey(this.keys);
  }
}
