import type { FrameState } from 'ol/Map';
import { asArray } from 'ol/color';
import { getWidth } from 'ol/extent';
import LayerRenderer from 'ol/renderer/Layer';
import type PointsLayer from './PointsLayer';
import type { PointBuffer } from './pointBuffer';
import { POINT_FRAGMENT_SHADER, POINT_VERTEX_SHADER } from './pointShaders';
import { ThinScratch, thinToScreen } from './thinPoints';

interface Gl {
  gl: WebGLRenderingContext;
  program: WebGLProgram;
  buffer: WebGLBuffer;
  at: { position: number; matrix: WebGLUniformLocation; offset: WebGLUniformLocation; size: WebGLUniformLocation; fill: WebGLUniformLocation; rim: WebGLUniformLocation; rimWidth: WebGLUniformLocation };
}

/** Copies of the world drawn side by side at most (a wide window at zoom 0 shows about five). */
const MAX_WORLDS = 16;


function compile(gl: WebGLRenderingContext, type: number, source: string): WebGLShader {
  const shader = gl.createShader(type)!;
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost())
    throw new Error(`point shader did not compile: ${gl.getShaderInfoLog(shader) ?? ''}`);
  return shader;
}

const rgba = (colour: string): [number, number, number, number] => {
  const [r, g, b, a] = asArray(colour);
  return [r! / 255, g! / 255, b! / 255, a ?? 1];
};

/**
 * Draws a PointsLayer's buffer with raw WebGL: one buffer upload per data set and one draw call
 * per visible copy of the world, whatever the number of points. The context is made on the
 * first frame with points and given back on dispose (browsers allow only a few at a time).
 */
export default class PointsRenderer extends LayerRenderer<PointsLayer> {
  private readonly container: HTMLDivElement;
  private readonly canvas: HTMLCanvasElement;
  private ctx: Gl | null = null;
  /** The data set the scratch and the GL buffer's size are for. */
  private uploaded: PointBuffer | null = null;
  private scratch: ThinScratch | null = null;
  /** The view the GL buffer's points were thinned for, when one copy of the world was drawn. */
  private thinnedFor = '';
  private thinnedCount = 0;

  constructor(layer: PointsLayer) {
    super(layer);
    this.container = document.createElement('div');
    this.container.className = layer.getClassName();
    this.container.style.position = 'absolute';
    this.container.style.width = '100%';
    this.container.style.height = '100%';
    this.canvas = document.createElement('canvas');
    this.canvas.style.position = 'absolute';
    this.canvas.style.left = '0';
    this.canvas.style.top = '0';
    this.container.appendChild(this.canvas);
    this.canvas.addEventListener('webglcontextlost', this.onLost);
    this.canvas.addEventListener('webglcontextrestored', this.onRestored);
  }

  private readonly onLost = (e: Event): void => {
    // Asking to keep the context lets the browser restore it; the data is uploaded again then.
    e.preventDefault();
    this.ctx = null;
    this.uploaded = null;
  };

  private readonly onRestored = (): void => this.getLayer().changed();

  private context(): Gl | null {
    if (this.ctx) return this.ctx;
    const gl = this.canvas.getContext('webgl', { antialias: false, depth: false, stencil: false, premultipliedAlpha: true });
    if (!gl || gl.isContextLost()) return null;
    const program = gl.createProgram()!;
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, POINT_VERTEX_SHADER));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, POINT_FRAGMENT_SHADER));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost())
      throw new Error(`point shaders did not link: ${gl.getProgramInfoLog(program) ?? ''}`);
    const u = (name: string) => gl.getUniformLocation(program, name)!;
    this.ctx = {
      gl,
      program,
      buffer: gl.createBuffer()!,
      at: { position: gl.getAttribLocation(program, 'a_position'), matrix: u('u_matrix'), offset: u('u_offset'), size: u('u_size'), fill: u('u_fill'), rim: u('u_rim'), rimWidth: u('u_rimWidth') },
    };
    return this.ctx;
  }

  override prepareFrame(): boolean {
    return this.getLayer().getPoints() !== null;
  }

  override renderFrame(frameState: FrameState): HTMLElement {
    const layer = this.getLayer();
    const points = layer.getPoints()!;
    const [w, h] = frameState.size as [number, number];
    const ratio = frameState.pixelRatio;
    const width = Math.round(w * ratio);
    const height = Math.round(h * ratio);
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
    }
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.container.style.opacity = String(frameState.layerStatesArray[frameState.layerIndex]?.opacity ?? 1);
    const c = this.context();
    if (!c) return this.container;
    const { gl, at } = c;
    gl.viewport(0, 0, width, height);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    if (points.count === 0) return this.container;
    gl.useProgram(c.program);
    gl.bindBuffer(gl.ARRAY_BUFFER, c.buffer);
    if (this.uploaded !== points || !this.scratch) {
      gl.bufferData(gl.ARRAY_BUFFER, points.positions.byteLength, gl.DYNAMIC_DRAW);
      this.scratch = new ThinScratch(new Float32Array(points.positions.length));
      this.uploaded = points;
      this.thinnedFor = '';
    }
    gl.enableVertexAttribArray(at.position);
    gl.vertexAttribPointer(at.position, 2, gl.FLOAT, false, 0, 0);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    const style = layer.getPointStyle();
    gl.uniform1f(at.size, 2 * style.radius * ratio);
    gl.uniform1f(at.rimWidth, style.rimWidth * ratio);
    gl.uniform4fv(at.fill, rgba(style.fill));
    gl.uniform4fv(at.rim, rgba(style.rim));

    // Map position to clip space: OpenLayers' coordinate-to-CSS-pixel transform, then pixels to
    // -1..1 (y up). The offset is worked out here in double precision for each world copy, so
    // the GPU only ever sees small numbers.
    const [a, b, cc, d, e, f] = frameState.coordinateToPixelTransform as unknown as number[];
    const m = [(2 * a!) / w, (-2 * b!) / h, (2 * cc!) / w, (-2 * d!) / h] as const;
    gl.uniform4f(at.matrix, m[0], m[1], m[2], m[3]);
    const [ox, oy] = points.origin;
    const projection = frameState.viewState.projection;
    const worldWidth = projection.canWrapX() ? getWidth(projection.getExtent()) : 0;
    const view = frameState.extent!;
    let first = 0;
    let last = 0;
    if (worldWidth > 0) {
      first = Math.ceil((view[0]! - points.extent[2]!) / worldWidth);
      last = Math.floor((view[2]! - points.extent[0]!) / worldWidth);
      if (last - first >= MAX_WORLDS) last = first + MAX_WORLDS - 1;
    }
    const margin = (style.radius + 1) * ratio;
    // Screen cell (whole CSS pixels) within which one point stands for all (see thinPoints): its
    // diagonal is under the dot's radius, so every point left out lies inside a drawn dot.
    const cell = Math.max(1, Math.floor(style.radius / Math.SQRT2)) * ratio;
    // Frames of an unchanged view (another layer redrawn) reuse the points already in the buffer.
    const viewKey = first === last ? `${first}|${width}|${height}|${frameState.coordinateToPixelTransform.join(',')}` : '';
    for (let k = first; k <= last; k++) {
      const x = ox + k * worldWidth;
      gl.uniform2f(at.offset, m[0] * x + m[2] * oy + (2 * e!) / w - 1, m[1] * x + m[3] * oy + 1 - (2 * f!) / h);
      if (viewKey && viewKey === this.thinnedFor) {
        gl.drawArrays(gl.POINTS, 0, this.thinnedCount);
        continue;
      }
      const kept = thinToScreen(
        points.positions,
        points.count,
        {
          matrix: [a! * ratio, b! * ratio, cc! * ratio, d! * ratio],
          originPx: [(a! * x + cc! * oy + e!) * ratio, (b! * x + d! * oy + f!) * ratio],
          width,
          height,
          margin,
          cell,
        },
        this.scratch,
      );
      this.thinnedFor = viewKey;
      this.thinnedCount = kept;
      if (kept === 0) continue;
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.scratch.out.subarray(0, 2 * kept));
      gl.drawArrays(gl.POINTS, 0, kept);
    }
    return this.container;
  }

  protected override disposeInternal(): void {
    this.canvas.removeEventListener('webglcontextlost', this.onLost);
    this.canvas.removeEventListener('webglcontextrestored', this.onRestored);
    if (this.ctx) {
      const { gl } = this.ctx;
      gl.deleteBuffer(this.ctx.buffer);
      gl.deleteProgram(this.ctx.program);
      gl.getExtension('WEBGL_lose_context')?.loseContext();
      this.ctx = null;
    }
    super.disposeInternal();
  }
}
