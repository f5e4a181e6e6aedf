import Feature from 'ol/Feature';
import type { FeatureLike } from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import type { Coordinate } from 'ol/coordinate';
import type { Extent } from 'ol/extent';
import { extend, isEmpty } from 'ol/extent';
import Point from 'ol/geom/Point';
import type BaseLayer from 'ol/layer/Base';
import LayerGroup from 'ol/layer/Group';
import Heatmap from 'ol/layer/Heatmap';
import VectorLayer from 'ol/layer/Vector';
import WebGLVectorLayer from 'ol/layer/WebGLVector';
import Cluster from 'ol/source/Cluster';
import VectorSource from 'ol/source/Vector';
import type { Style } from 'ol/style';
import PointIndex from './PointIndex';
import PointsLayer from './PointsLayer';
import { buildPointBuffer, type PointBuffer } from './pointBuffer';
import { facingDegrees } from './facing';
import { centreOf, figureText, membersExtent, pointOf, readResults, type GeoJsonFeatureCollection, type MapFeature } from './readResults';
import { chooseRenderMode, WEBGL_THRESHOLD, type DisplayChoice, type RenderMode } from './renderMode';
import type OverlayNames from './overlayNames';
import type { NamedExtent } from './overlayNames';
import { arrowStyle, clusterStyle, dotStyle, LABEL_SIDES, labelBox, labelStyle, webglPointStyle, webglStyle, type LabelSide } from './resultStyles';

export type { GeoJsonFeatureCollection } from './readResults';

export interface ResultsLayerOptions {
  /** Layer name, used by tests and the layer list. */
  name: string;
  color: string;
  /** Colour of the selected feature. */
  selectedColor?: string;
  /** Whether this browser can draw WebGL layers (false: canvas for every size). */
  webgl?: boolean;
  /**
   * Whether a label of this size above this map coordinate is clear of the map's controls
   * (absent: always). A label that is not is left out, as declutter leaves out overlapping ones.
   */
  labelClear?: (coordinate: Coordinate, box: LabelBox) => boolean;
  /** Where the names this layer labels are told, so the basemap does not name the same place again. */
  names?: OverlayNames;
}

export type LabelBox = ReturnType<typeof labelBox>;

/** What a click on this layer's drawing found: one result, or a cluster to zoom into. */
export type ResultsHit = { id: string } | { cluster: Extent };

/**
 * One result set on the map. Small sets are drawn on canvas with labels and capture arrows;
 * sets over WEBGL_THRESHOLD with WebGL (their points by PointsLayer straight from a buffer of
 * positions, their lines and areas by OpenLayers' WebGL vector layer); cluster and heatmap on
 * request. The selection is drawn by a layer of its own above any of them, so it shows whatever
 * draws the rest.
 */
export default class ResultsLayer {
  readonly group: LayerGroup;
  private source: VectorSource<MapFeature> | null = null;
  private drawing: BaseLayer | null = null;
  /** Non-point results of a large set, hit-tested by OpenLayers (points go through the index). */
  private othersLayer: BaseLayer | null = null;
  private readonly selection = new VectorSource<Feature>();
  private readonly selectionLayer: VectorLayer<VectorSource<Feature>>;
  private readonly format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
  private collection: GeoJsonFeatureCollection | null = null;
  private full: Extent | undefined;
  private display: DisplayChoice = 'features';
  private mode: RenderMode = 'canvas';
  private selectedId: string | undefined;
  /** A large set's points as one buffer (null for small sets, drawn feature by feature). */
  private points: PointBuffer | null = null;
  private index: PointIndex | null = null;
  /** Every result as an OpenLayers feature: small sets always, large ones only for cluster, heatmap or no WebGL. */
  private features: MapFeature[] | null = null;
  /** A large set's lines and areas as features (its points stay in the buffer). */
  private others: MapFeature[] = [];
  private readonly base: Style;
  private readonly selected: Style;
  /** Each result's colour by its place in the collection (null: its class is turned off); absent: the layer's colour. */
  private colours: readonly (string | null)[] | null = null;
  private readonly dots = new Map<string, Style>();
  /** Columns whose values labels show after the name (the figure asked about). */
  private figure: readonly string[] = [];

  constructor(private readonly options: ResultsLayerOptions) {
    this.base = dotStyle(options.color, false);
    this.selected = dotStyle(options.selectedColor ?? '#d7301f', true);
    this.selectionLayer = new VectorLayer({
      source: this.selection,
      properties: { name: `${options.name}-selection` },
      style: (f) => {
        const side = this.labelSide(f, true);
        return side ? [this.styleOf(f, true)!, labelStyle(f, true, side)] : (this.styleOf(f, true) ?? undefined);
      },
      // In the labels' decluttering and above the set's own layer: the selected label is placed
      // first, and another result's label that would run over it gives way.
      declutter: true,
      zIndex: 1,
    });
    this.group = new LayerGroup({ properties: { name: options.name }, layers: [this.selectionLayer] });
    this.group.on('change:visible', () => this.tellNames());
    this.draw();
  }

  /** The names this layer labels now: every feature of a small set, else the selected one; none while hidden. */
  private tellNames(): void {
    const names = this.options.names;
    if (!names) return;
    const named: NamedExtent[] = [];
    if (this.group.getVisible()) {
      const all = (this.collection?.features.length ?? 0) <= 50 && this.features !== null;
      const labelled = all ? this.features! : this.selection.getFeatures();
      for (const f of labelled) {
        const name = f.get('name');
        const extent = f.getGeometry()?.getExtent();
        if (name && extent) named.push({ name: String(name), extent });
      }
    }
    names.set(this.options.name, named);
  }

  /** The first side of its dot where a feature's label stays clear of the map's controls (null: none does). */
  private labelSide(f: FeatureLike, selected: boolean): LabelSide | null {
    const clear = this.options.labelClear;
    const at = clear && ((f.get('labelAt') as Coordinate | undefined) ?? pointOf(f as MapFeature));
    if (!at) return 'above';
    return LABEL_SIDES.find((side) => clear(at, labelBox(f, selected, side))) ?? null;
  }

  /**
   * Labels are placed when a layer's features are styled, which OpenLayers skips while the view
   * stays within what it drew last; after the view settles they are placed again for where the
   * controls now are.
   */
  refreshLabels(): void {
    this.selectionLayer.changed();
    if (this.drawing instanceof VectorLayer) this.drawing.changed();
  }

  /**
   * Colours each result by its place in the collection (the legend's classes; null hides it),
   * or, given null, all in the layer's colour. Drawn on canvas; large WebGL sets keep one colour.
   */
  setColours(colours: readonly (string | null)[] | null): void {
    this.colours = colours;
    this.drawing?.changed();
  }

  /** Styles of one feature on canvas: an arrow for a capture with a known facing, else a dot; null when its class is off. */
  private styleOf(f: FeatureLike, selected: boolean): Style | null {
    const i = f.get('i') as number | undefined;
    const own = this.colours && i !== undefined ? this.colours[i] : undefined;
    if (own === null && !selected) return null;
    const facing = f.get('facing') as number | null | undefined;
    const color = selected ? (this.options.selectedColor ?? '#d7301f') : (own ?? this.options.color);
    if (typeof facing === 'number' && f.getGeometry()?.getType() === 'Point') return arrowStyle(color, facing, selected);
    if (selected) return this.selected;
    if (!own) return this.base;
    let dot = this.dots.get(own);
    if (!dot) this.dots.set(own, (dot = dotStyle(own, false)));
    return dot;
  }

  /** Every result as a feature, read on first need for a large set (cluster, heatmap, no WebGL). */
  private allFeatures(): MapFeature[] {
    if (!this.features && this.collection) this.features = readResults(this.collection, { details: false }).features;
    return this.features ?? [];
  }

  private makeDrawing(mode: RenderMode): BaseLayer {
    const properties = { name: `${this.options.name}-${mode}` };
    const big = this.points !== null;
    switch (mode) {
      case 'webgl': {
        const points = new PointsLayer({ style: webglPointStyle(this.options.color), properties: { name: `${this.options.name}-points` } });
        points.setPoints(this.points ?? buildPointBuffer({ type: 'FeatureCollection', features: [] }));
        if (!this.others.length) {
          points.setProperties(properties);
          return points;
        }
        this.source = new VectorSource<MapFeature>({ features: this.others });
        this.othersLayer = new WebGLVectorLayer({ source: this.source, style: webglStyle(this.options.color), properties: { name: `${this.options.name}-others` } });
        return new LayerGroup({ properties, layers: [this.othersLayer, points] });
      }
      case 'heatmap':
        this.source = new VectorSource<MapFeature>({ features: this.allFeatures(), useSpatialIndex: !big });
        return new Heatmap({ source: this.source as VectorSource<never>, blur: 18, radius: 6, weight: () => 1, properties });
      case 'cluster': {
        // Clustering asks for neighbours by extent, so it needs a spatially indexed source.
        this.source = new VectorSource<MapFeature>({ features: this.allFeatures() });
        const clusters = new Cluster<MapFeature>({
          source: this.source,
          distance: 44,
          // Results are RenderFeatures; the cluster needs a Point of each (only points cluster).
          geometryFunction: (f) => {
            const at = pointOf(f);
            return at ? new Point(at) : null;
          },
        });
        return new VectorLayer({
          source: clusters,
          properties,
          style: (f) => {
            const members = f.get('features') as MapFeature[];
            return clusterStyle(this.options.color, members.length, members.length === 1 ? (this.styleOf(members[0]!, false) ?? this.base) : this.base);
          },
        });
      }
      default: {
        const labelAll = (this.collection?.features.length ?? 0) <= 50;
        // A spatial index pays off for small sets (canvas draws what is in view); for large ones
        // building it costs more than it saves.
        this.source = new VectorSource<MapFeature>({ features: this.allFeatures(), useSpatialIndex: !big });
        return new VectorLayer({
          source: this.source,
          properties,
          // The selected feature's label is drawn by the selection layer, once.
          style: (f) => {
            const shape = this.styleOf(f, false);
            if (!shape) return undefined;
            const side = labelAll && !this.isSelected(f) ? this.labelSide(f, false) : null;
            return side ? [shape, labelStyle(f, false, side)] : shape;
          },
          // Labels that would overlap are left out; dots are always drawn.
          declutter: true,
        });
      }
    }
  }

  /** (Re)creates the drawing layer for the current size and display choice. */
  private draw(): void {
    const count = this.collection?.features.length ?? 0;
    const mode = chooseRenderMode(count, this.display, this.options.webgl ?? true);
    const layers = this.group.getLayers();
    if (this.drawing) {
      layers.remove(this.drawing);
      if (this.drawing instanceof LayerGroup) this.drawing.getLayers().forEach((l) => l.dispose());
      this.drawing.dispose();
    }
    const old = this.source;
    this.source = null;
    this.othersLayer = null;
    this.mode = mode;
    this.drawing = this.makeDrawing(mode);
    layers.insertAt(0, this.drawing);
    if (old) {
      old.clear(true);
      old.dispose();
    }
  }

  setFeatures(collection: GeoJsonFeatureCollection): void {
    this.collection = collection;
    const big = collection.features.length > WEBGL_THRESHOLD;
    if (big) {
      // A large set's points go to the GPU as one buffer, read straight from the GeoJSON; only
      // its lines and areas become features (as `i`, they keep their place in the collection).
      this.points = buildPointBuffer(collection);
      const list = this.points.others;
      const read = readResults({ type: 'FeatureCollection', features: list.map((i) => collection.features[i]!) }, { details: false });
      // (Only points become RenderFeatures, so every one of these is a Feature.)
      for (const f of read.features) if (f instanceof Feature) f.set('i', list[f.get('i') as number], true);
      this.others = read.features;
      this.features = null;
      this.index = new PointIndex(this.points);
      this.full = this.points.count ? extend([...this.points.extent], read.extent) : read.extent;
    } else {
      const read = readResults(collection, { details: true, figure: this.figure });
      this.points = null;
      this.others = [];
      this.features = read.features;
      this.index = null;
      this.full = read.extent;
    }
    if (isEmpty(this.full) && !Number.isFinite(this.full[0])) this.full = undefined;
    this.draw();
    this.select(undefined);
  }

  /** Labels name each result and, given columns, show their values after the name ("Annecy store · 340"). */
  setFigure(columns: readonly string[]): void {
    if (columns.length === this.figure.length && columns.every((c, i) => c === this.figure[i])) return;
    this.figure = [...columns];
    // Only small sets are labelled (large ones label the selection alone, set again below).
    if (this.collection && !this.points) {
      this.features = readResults(this.collection, { details: true, figure: this.figure }).features;
      this.draw();
    }
    this.select(this.selectedId);
  }

  setDisplay(display: DisplayChoice): void {
    if (display === this.display) return;
    this.display = display;
    this.draw();
  }

  get renderMode(): RenderMode {
    return this.mode;
  }

  /** Whether a layer found under the pointer is one of this set's (and OpenLayers can hit-test it). */
  owns(layer: unknown): boolean {
    if (layer === this.selectionLayer) return true;
    if (this.mode === 'webgl') return layer !== null && layer === this.othersLayer;
    return layer === this.drawing && this.mode !== 'heatmap';
  }

  /** A large set's points are picked through the k-d tree instead of OpenLayers' hit detection. */
  pickAt(coordinate: Coordinate, resolution: number, tolerance: number): ResultsHit | null {
    if (this.mode !== 'webgl' || !this.index || !this.visible) return null;
    const i = this.index.nearest(coordinate, resolution * tolerance);
    const id = i === null ? undefined : this.collection?.features[i]?.id;
    return id === undefined ? null : { id: String(id) };
  }

  /** The result (or cluster) a hit feature stands for. */
  hitOf(feature: FeatureLike): ResultsHit | null {
    const members = feature.get('features') as MapFeature[] | undefined;
    if (members && members.length > 1) {
      const box = members.reduce<Extent>(
        (e, m) => {
          const [x, y] = pointOf(m) ?? [e[0]!, e[1]!];
          return [Math.min(e[0]!, x!), Math.min(e[1]!, y!), Math.max(e[2]!, x!), Math.max(e[3]!, y!)];
        },
        [Infinity, Infinity, -Infinity, -Infinity],
      );
      return { cluster: box };
    }
    const f = members?.[0] ?? feature;
    const i = f.get('i') as number | undefined;
    const id = i === undefined ? undefined : this.collection?.features[i]?.id;
    return id === undefined ? null : { id: String(id) };
  }

  /** Whether a drawn feature (it keeps its place in the collection as `i`) is the selected one. */
  private isSelected(f: FeatureLike): boolean {
    if (this.selectedId === undefined) return false;
    const i = f.get('i') as number | undefined;
    const id = i === undefined ? f.getId() : this.collection?.features[i]?.id;
    return id !== undefined && String(id) === this.selectedId;
  }

  select(id: string | number | undefined): void {
    this.selectedId = id === undefined ? undefined : String(id);
    // Redrawn so the selected feature's own label gives way to the selection's.
    this.drawing?.changed();
    this.selection.clear(true);
    const raw = this.selectedId === undefined ? undefined : this.collection?.features.find((f) => f.id !== undefined && String(f.id) === this.selectedId);
    if (!raw?.geometry) return this.tellNames();
    const p = (raw.properties ?? {}) as Record<string, unknown>;
    const f = this.format.readFeature({ type: 'Feature', geometry: raw.geometry, properties: null }) as Feature;
    const members = membersExtent(raw.members_bbox);
    f.setProperties({ name: p['name'] ?? p['address'] ?? p['feature_name'] ?? '', facing: facingDegrees(p), figure: figureText(p, this.figure), ...(members ? { labelAt: centreOf(members) } : {}) });
    f.setId(this.selectedId);
    this.selection.addFeature(f);
    this.tellNames();
  }

  featureExtent(id: string | number): Extent | undefined {
    if (String(id) === this.selectedId) return this.selection.getFeatures()[0]?.getGeometry()?.getExtent();
    const raw = this.collection?.features.find((f) => f.id !== undefined && String(f.id) === String(id));
    if (!raw?.geometry) return undefined;
    return (this.format.readFeature({ type: 'Feature', geometry: raw.geometry, properties: null }) as Feature).getGeometry()?.getExtent();
  }

  extent(): Extent | undefined {
    return this.full;
  }

  setVisible(visible: boolean): void {
    this.group.setVisible(visible);
  }

  get visible(): boolean {
    return this.group.getVisible();
  }

  get name(): string {
    return this.options.name;
  }

  clear(): void {
    this.setFeatures({ type: 'FeatureCollection', features: [] });
    this.collection = null;
  }

  dispose(): void {
    this.options.names?.set(this.options.name, []);
    if (this.drawing instanceof LayerGroup) this.drawing.getLayers().forEach((l) => l.dispose());
    this.group.getLayers().forEach((l) => l.dispose());
    this.group.dispose();
    this.source?.dispose();
    this.selection.dispose();
  }
}
