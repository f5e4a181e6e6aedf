import Map from 'ol/Map';
import View from 'ol/View';
import { defaults as defaultControls, ScaleLine } from 'ol/control';
import { fromLonLat } from 'ol/proj';
import { createBasemapLayers } from './basemapLayers';

export interface FieldMapOptions {
  target: HTMLElement;
  center?: [number, number];
  zoom?: number;
}

/** The workspace map: an OpenLayers map over the offline basemap. Call dispose() when done. */
export default class FieldMap {
  readonly map: Map;
  /** Resolves after the first complete render of the basemap. */
  readonly firstRender: Promise<void>;

  constructor(options: FieldMapOptions) {
    this.map = new Map({
      target: options.target,
      layers: createBasemapLayers(),
      controls: defaultControls().extend([new ScaleLine()]),
      view: new View({ center: fromLonLat(options.center ?? [10, 30]), zoom: options.zoom ?? 2, maxZoom: 19 }),
    });
    this.firstRender = new Promise((resolve) => this.map.once('rendercomplete', () => resolve()));
  }

  dispose(): void {
    this.map.getLayers().forEach((layer) => layer.dispose());
    this.map.setTarget(undefined);
    this.map.dispose();
  }
}
