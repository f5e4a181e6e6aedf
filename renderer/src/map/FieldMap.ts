import Map from 'ol/Map';
import View from 'ol/View';
import { defaults as defaultControls, MousePosition, ScaleLine } from 'ol/control';
import { fromLonLat, getPointResolution, toLonLat, transformExtent } from 'ol/proj';
import type BaseLayer from 'ol/layer/Base';
import type { Coordinate } from 'ol/coordinate';
import type { Extent } from 'ol/extent';
import { intersects, isEmpty } from 'ol/extent';
import Basemaps from './Basemaps';
import ControlObstacles from './ControlObstacles';
import OverlayNames, { type NamedExtent } from './overlayNames';
import { placedLabels } from './placedLabels';
import type { Theme } from '../lib/theme';
import { coordinateText } from './coordinateText';
import { DEFAULT_UNITS, SCALE_MIN_WIDTH, scaleBar, type Units } from '../lib/units';

export interface FieldMapOptions {
  target: HTMLElement;
  center?: [number, number];
  zoom?: number;
  /** Where the pointer's coordinates are written. */
  coordinatesTarget?: HTMLElement;
  /** A basemap problem to show (online tiles failing, a file that is not PMTiles), or null. */
  onBasemapProblem?: (message: string | null) => void;
  theme?: Theme;
}

/** Closest zoom a fit goes to: streets and building outlines, with the blocks around them. */
export const FIT_MAX_ZOOM = 17;

/**
 * Room kept around a fit, in pixels (top, right, bottom, left): the sides leave room for the
 * labels of points at the edge; the same on both keeps a lone point centred.
 */
const FIT_PADDING = [72, 120, 56, 120];
/** Pixels kept between a label and a map control. */
const LABEL_MARGIN = 4;
/** How near (pixels) the basemap's label of a place may be to an overlay's feature of the same name before it is left out. */
const SAME_PLACE_PX = 48;
/** What the person does to move the map; after it, a resize keeps their view. */
const FORGET_FIT_ON = ['pointerdown', 'wheel', 'keydown'] as const;

/** The workspace map: an OpenLayers map over the offline basemap. Call dispose() when done. */
export default class FieldMap {
  readonly map: Map;
  /**
   * The last fit, until the person moves the map: when the map's box changes size (a results
   * dock opens beside it, the layout changes) the same extent is framed again in the new box.
   */
  private lastFit: { box: Extent; maxZoom: number } | null = null;
  private readonly forgetFit = () => (this.lastFit = null);
  /** Resolves after the first complete render of the basemap. */
  readonly firstRender: Promise<void>;
  readonly basemaps: Basemaps;
  private scaleLine = new ScaleLine();
  private scaleUnits: Units = DEFAULT_UNITS;
  private scaleWidth = SCALE_MIN_WIDTH;

  /** The map controls' boxes in map pixels, measured once per frame when a label asks. */
  private controlBoxes: Extent[] | null = null;
  /** The boxes labels were last placed around, to tell when a control opened, closed or grew. */
  private placedAround = '';
  private readonly controlsWatch: { resize: ResizeObserver; mutation: MutationObserver } | null;
  private readonly controlsListeners = new Set<() => void>();
  /** What the overlays label, so the basemap names no place twice. */
  readonly overlayNames = new OverlayNames();
  /** The named labels of the last complete frame. */
  private placed: NamedExtent[] = [];
  /** The basemap places its labels again after the last complete frame: the map is not settled until it has. */
  private relabelPending = false;

  /**
   * Whether a label (its box above a map coordinate) is clear of every control over the map:
   * OpenLayers' own and the app's (marked data-map-control), with a few pixels to spare.
   */
  readonly labelClear = (coordinate: Coordinate, box: { width: number; height: number; offsetY: number; offsetX?: number }): boolean => {
    const p = this.map.getPixelFromCoordinate(coordinate);
    if (!p) return true;
    const [x, y] = [p[0]! + (box.offsetX ?? 0), p[1]! + box.offsetY];
    const label: Extent = [x - box.width / 2 - LABEL_MARGIN, y - box.height / 2 - LABEL_MARGIN, x + box.width / 2 + LABEL_MARGIN, y + box.height / 2 + LABEL_MARGIN];
    return !this.controls().some((c) => intersects(c, label));
  };

  private controls(): Extent[] {
    if (this.controlBoxes) return this.controlBoxes;
    const viewport = this.map.getViewport();
    const wrap = this.map.getTargetElement()?.parentElement ?? viewport;
    if (!viewport || !wrap) return [];
    const origin = viewport.getBoundingClientRect();
    const boxes: Extent[] = [];
    for (const el of wrap.querySelectorAll('.ol-control, .ol-scale-line, [data-map-control]')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) boxes.push([r.left - origin.left, r.top - origin.top, r.right - origin.left, r.bottom - origin.top]);
    }
    return (this.controlBoxes = boxes);
  }

  constructor(options: FieldMapOptions) {
    this.map = new Map({
      target: options.target,
      // A street-zoom view in 256 px tiles asks for 24 to 40 tiles at once; with OpenLayers' 16 the
      // rest were asked only after the first ones had been drawn, making and drawing in turn.
      maxTilesLoading: 64,
      controls: defaultControls({ attributionOptions: { collapsible: false } }).extend([
        this.scaleLine,
        new MousePosition({
          projection: 'EPSG:4326',
          coordinateFormat: (c) => (c ? coordinateText(c[0]!, c[1]!) : ''),
          placeholder: '',
          className: 'fl-mouse-position',
          ...(options.coordinatesTarget ? { target: options.coordinatesTarget } : {}),
        }),
      ]),
      view: new View({ center: fromLonLat(options.center ?? [10, 30]), zoom: options.zoom ?? 2, maxZoom: 19 }),
    });
    this.basemaps = new Basemaps({
      map: this.map,
      onProblem: (m) => options.onBasemapProblem?.(m),
      placeNamed: (name, at, resolution) => this.overlayNames.has(name, at, SAME_PLACE_PX * resolution),
      ...(options.theme ? { theme: options.theme } : {}),
    });
    this.overlayNames.onChange(() => {
      if (this.basemaps.relabel()) this.relabelPending = true;
    });
    // What each complete frame placed decides whose label names a place next: an overlay's, or
    // where that gave way to another label, the basemap's.
    this.map.on('rendercomplete', (e) => {
      this.relabelPending = false;
      this.placed = placedLabels(e.frameState);
      this.overlayNames.settle(this.placed);
    });
    this.firstRender = new Promise((resolve) => this.map.once('rendercomplete', () => resolve()));
    this.map.on('precompose', () => (this.controlBoxes = null));
    // Decluttered labels (street basemap, basemap file, data layer) give way to the controls.
    const obstacles = new ControlObstacles(this.map, () => {
      this.controlBoxes = null;
      return this.controls();
    });
    this.map.addLayer(obstacles.layer);
    this.map.on('moveend', () => {
      this.updateScale();
      obstacles.update();
      this.placedAround = this.controlsKey();
    });
    // A control that opens, closes or grows without the view moving (the Layers panel): labels are
    // placed again around it at once, and come back where it was once it closes.
    const controlsChanged = () => {
      const key = this.controlsKey();
      if (key === this.placedAround) return;
      this.placedAround = key;
      obstacles.update();
      for (const cb of this.controlsListeners) cb();
      this.map.render();
    };
    const wrap = options.target.parentElement;
    this.controlsWatch =
      wrap && typeof ResizeObserver !== 'undefined'
        ? { resize: new ResizeObserver(controlsChanged), mutation: new MutationObserver(() => this.observeControls(wrap, controlsChanged)) }
        : null;
    if (wrap && this.controlsWatch) {
      this.controlsWatch.mutation.observe(wrap, { childList: true });
      this.observeControls(wrap, controlsChanged);
    }
    this.map.on('change:size', () => {
      if (this.lastFit) this.map.getView().fit(this.lastFit.box, { padding: FIT_PADDING, maxZoom: this.lastFit.maxZoom });
    });
    for (const type of FORGET_FIT_ON) this.map.getViewport()?.addEventListener(type, this.forgetFit, { passive: true });
  }

  /** The controls' boxes as measured now, rounded to the label margin (a moving coordinate readout is no change). */
  private controlsKey(): string {
    this.controlBoxes = null;
    return this.controls()
      .map((b) => b.map((v) => Math.round(v / (LABEL_MARGIN * 2))).join(','))
      .join(';');
  }

  private observeControls(wrap: HTMLElement, changed: () => void): void {
    const watch = this.controlsWatch;
    if (!watch) return;
    watch.resize.disconnect();
    for (const el of wrap.querySelectorAll('.ol-control, .ol-scale-line, [data-map-control]')) watch.resize.observe(el);
    changed();
  }

  /** Calls back when the map's controls change without the view moving: overlays place their labels again. */
  onControlsChange(cb: () => void): void {
    this.controlsListeners.add(cb);
  }

  /**
   * Calls back with false when the view starts moving and true once everything is drawn again,
   * so callers (and tests) can tell a settled map from one caught mid-animation.
   */
  onSettledChange(cb: (settled: boolean) => void): void {
    this.map.on('movestart', () => cb(false));
    this.map.on('rendercomplete', () => cb(!this.relabelPending));
  }

  /** The names the last complete frame labelled, one per label placed (a place named twice is listed twice). */
  labelledNames(): string[] {
    return this.placed.map((p) => p.name);
  }

  /** The scale bar in the units lengths are shown in. */
  setScaleUnits(units: Units): void {
    this.scaleUnits = units;
    this.updateScale();
  }

  /** The scale bar's system (and, where needed, its shortest width) for the chosen units at this scale. */
  private updateScale(): void {
    const view = this.map.getView();
    const resolution = view.getResolution();
    const centre = view.getCenter();
    if (resolution === undefined || !centre) return;
    const { system, minWidth } = scaleBar(this.scaleUnits, getPointResolution(view.getProjection(), resolution, centre, 'm'));
    // The width is fixed when the control is made: a new one only where it changes (rarely).
    if (minWidth !== this.scaleWidth) {
      this.scaleWidth = minWidth;
      this.map.removeControl(this.scaleLine);
      this.scaleLine = new ScaleLine({ units: system, minWidth });
      this.map.addControl(this.scaleLine);
    } else if (this.scaleLine.getUnits() !== system) this.scaleLine.setUnits(system);
  }

  addLayer(layer: BaseLayer): void {
    this.map.addLayer(layer);
  }

  /**
   * Zooms to an extent (map projection) with room around it, as close as it needs: a town's
   * results fill the map at street zoom. `maxZoom` caps it (a single point, or points a few
   * metres apart, stop at street level rather than at the last zoom step).
   */
  fit(extent: Extent, maxZoom = FIT_MAX_ZOOM): void {
    if (!extent.every(Number.isFinite)) return;
    // A single point has an empty extent; fit still centres on it, at maxZoom. The side padding
    // leaves room for the labels of points at the edge.
    const box = isEmpty(extent) ? [extent[0]! - 1, extent[1]! - 1, extent[2]! + 1, extent[3]! + 1] : extent;
    this.lastFit = { box, maxZoom };
    this.map.getView().fit(box, { padding: FIT_PADDING, maxZoom, duration: 250 });
  }

  /** Centres on an extent without changing the zoom unless it is far out. */
  centreOn(extent: Extent, minZoom = 6): void {
    this.lastFit = null;
    const view = this.map.getView();
    const c: [number, number] = [(extent[0]! + extent[2]!) / 2, (extent[1]! + extent[3]!) / 2];
    view.animate({ center: c, zoom: Math.max(view.getZoom() ?? minZoom, minZoom), duration: 250 });
  }

  /** The view centre as [longitude, latitude]. */
  centreLonLat(): [number, number] {
    const [lon, lat] = toLonLat(this.map.getView().getCenter() ?? [0, 0]);
    return [lon!, lat!];
  }

  /** The visible area as [minx, miny, maxx, maxy] in degrees, clamped to one world. */
  extentLonLat(): [number, number, number, number] {
    const e = transformExtent(this.map.getView().calculateExtent(this.map.getSize()), 'EPSG:3857', 'EPSG:4326');
    const clamp = (v: number, lim: number) => Math.max(-lim, Math.min(lim, v));
    return [clamp(e[0]!, 180), clamp(e[1]!, 90), clamp(e[2]!, 180), clamp(e[3]!, 90)];
  }

  dispose(): void {
    this.controlsWatch?.resize.disconnect();
    this.controlsWatch?.mutation.disconnect();
    this.controlsListeners.clear();
    for (const type of FORGET_FIT_ON) this.map.getViewport()?.removeEventListener(type, this.forgetFit);
    this.basemaps.dispose();
    this.map.getLayers().forEach((layer) => layer.dispose());
    this.map.setTarget(undefined);
    this.map.dispose();
  }
}
