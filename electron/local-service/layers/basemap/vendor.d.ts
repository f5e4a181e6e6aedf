// Type declarations for packages that ship none.

declare module 'vt-pbf' {
  import type { LegacyTile } from 'geojson-vt';
  const vtpbf: {
    /** Encodes geojson-vt tiles, one per named layer, as one Mapbox vector tile. */
    fromGeojsonVt(layers: Record<string, LegacyTile>, options?: { version?: number; extent?: number }): Uint8Array;
  };
  export default vtpbf;
}
