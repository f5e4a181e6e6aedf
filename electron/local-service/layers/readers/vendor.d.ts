// Type declarations for packages that ship none.

declare module 'shapefile' {
  import type { Feature } from 'geojson';
  export interface Source {
    bbox: number[];
    read(): Promise<{ done: boolean; value: Feature }>;
    cancel(): Promise<void>;
  }
  export function open(shp: string, dbf?: string, options?: { encoding?: string }): Promise<Source>;
}
