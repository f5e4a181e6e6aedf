/**
 * How a result set is drawn. Canvas draws every feature with labels and is fine up to a few
 * thousand; past WEBGL_THRESHOLD features the GPU draws them (canvas takes seconds per frame at
 * 100k). Cluster and heatmap are chosen by the user, whatever the size.
 */
export type RenderMode = 'canvas' | 'webgl' | 'cluster' | 'heatmap';
export type DisplayChoice = 'features' | 'cluster' | 'heatmap';

/** More features than this are drawn with WebGL. */
export const WEBGL_THRESHOLD = 5_000;

export function chooseRenderMode(featureCount: number, display: DisplayChoice, webglAvailable = true): RenderMode {
  if (display === 'cluster') return 'cluster';
  // The heatmap layer is WebGL only; without WebGL the features are drawn instead.
  if (display === 'heatmap') return webglAvailable ? 'heatmap' : 'canvas';
  return featureCount > WEBGL_THRESHOLD && webglAvailable ? 'webgl' : 'canvas';
}
