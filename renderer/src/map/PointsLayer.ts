import Layer from 'ol/layer/Layer';
import type { PointBuffer } from './pointBuffer';
import PointsRenderer from './PointsRenderer';

export interface PointStyle {
  fill: string;
  rim: string;
  /** Disc radius in CSS pixels, rim included. */
  radius: number;
  rimWidth: number;
}

export interface PointsLayerOptions {
  style: PointStyle;
  properties?: Record<string, unknown>;
  zIndex?: number;
}

/**
 * A large point set drawn by the GPU from one buffer of projected positions (see pointBuffer):
 * no OpenLayers feature per point, so a million points are on screen in about the time the
 * buffer takes to build. It does no hit detection; picking goes through PointIndex.
 */
export default class PointsLayer extends Layer {
  private points: PointBuffer | null = null;
  private readonly style: PointStyle;

  constructor(options: PointsLayerOptions) {
    // A class of its own: OpenLayers' canvas layers try to draw into a container of their class.
    super({ className: 'ol-layer fl-points', properties: options.properties ?? {}, ...(options.zIndex === undefined ? {} : { zIndex: options.zIndex }) });
    this.style = options.style;
  }

  setPoints(points: PointBuffer | null): void {
    this.points = points;
    this.changed();
  }

  getPoints(): PointBuffer | null {
    return this.points;
  }

  getPointStyle(): PointStyle {
    return this.style;
  }

  protected override createRenderer(): PointsRenderer {
    return new PointsRenderer(this);
  }
}
