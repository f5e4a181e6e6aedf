import { describe, expect, it } from 'vitest';
import { WEBGL_THRESHOLD, chooseRenderMode } from '../../../../renderer/src/map/renderMode';

describe('render mode choice', () => {
  it('draws up to 5,000 features on canvas and more with WebGL', () => {
    expect(WEBGL_THRESHOLD).toBe(5000);
    expect(chooseRenderMode(0, 'features')).toBe('canvas');
    expect(chooseRenderMode(5000, 'features')).toBe('canvas');
    expect(chooseRenderMode(5001, 'features')).toBe('webgl');
    expect(chooseRenderMode(1_000_000, 'features')).toBe('webgl');
  });

  it('follows the cluster and heatmap toggles at any size, and falls back to canvas without WebGL', () => {
    expect(chooseRenderMode(10, 'cluster')).toBe('cluster');
    expect(chooseRenderMode(100_000, 'heatmap')).toBe('heatmap');
    expect(chooseRenderMode(100_000, 'features', false)).toBe('canvas');
    expect(chooseRenderMode(100_000, 'heatmap', false)).toBe('canvas');
    expect(chooseRenderMode(100_000, 'cluster', false)).toBe('cluster');
  });
});
