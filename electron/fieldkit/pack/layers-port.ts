import type { Geometry } from 'geojson';

/**
 * What a pack needs of the data layers, stated here so the pack does not reach into the bundled
 * service: the composition root adapts the layer store to it (root/pack-layers.ts).
 */

export interface PackLayerInfo {
  id: string;
  name: string;
  sourceFile: string;
  format: string;
  licence: string | null;
  sourceText: string;
  bbox: [number, number, number, number] | null;
}

export interface PackLayerFeature {
  sourceId: string;
  sublayer: string | null;
  geometry: Geometry;
  tags: Record<string, unknown>;
}

export interface PackLayers {
  list(): PackLayerInfo[];
  /** Features that meet a geometry (touching counts). */
  intersecting(layerId: string, geometry: Geometry): Promise<PackLayerFeature[]>;
  /** Stores a layer, in place of the layers of the same name and file; says whether one was replaced. */
  replace(layer: Omit<PackLayerInfo, 'id' | 'bbox'>, features: PackLayerFeature[]): Promise<{ replaced: boolean }>;
}
