import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import type { Geometry } from 'geojson';
import { ColumnStats } from './column-stats';
import type { Slicer } from './slice';
import { GEOMETRY_TYPES, type UploadPart } from './spool';
import { setOwn, type TypedColumn, type UploadFeature } from './types';

/** Bytes read from a spool at once: rows asked for in order come from one read. */
const BLOCK = 1 << 20;

interface Segment {
  start: number;
  count: number;
  file: string;
  lon: Float64Array;
  lat: Float64Array;
  types: Uint8Array;
  /** Index into `countries` (0: none yet). */
  country: Uint16Array;
  countries: string[];
  stats: ColumnStats;
  /** Rows kept as objects (small files read on the service's thread, tests, saved JSON). */
  features?: UploadFeature[];
  spool?: Spool;
}

/** A spool file read back row by row through a block cache (see UploadPart). */
class Spool {
  private fd = -1;
  private block = Buffer.alloc(0);
  private from = 0;
  private to = 0;
  constructor(
    readonly path: string,
    readonly offsets: Uint32Array,
    readonly typed: TypedColumn[],
  ) {}

  row(j: number): [string, string, string, Geometry | null, Record<string, unknown>] {
    const a = this.offsets[j]!;
    const b = this.offsets[j + 1]!;
    if (a < this.from || b > this.to) {
      if (this.fd < 0) this.fd = openSync(this.path, 'r');
      const size = Math.max(BLOCK, b - a);
      if (this.block.length < size) this.block = Buffer.allocUnsafe(size);
      const got = readSync(this.fd, this.block, 0, size, a);
      this.from = a;
      this.to = a + got;
    }
    const row = JSON.parse(this.block.toString('utf8', a - this.from, b - this.from)) as ReturnType<Spool['row']>;
    const attributes = row[4];
    for (const t of this.typed) {
      const v = attributes[t.key] as string;
      setOwn(attributes, t.key, v === '' ? null : t.as === 'number' ? Number(v) : v.toLowerCase() === 'true');
    }
    return row;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.block = Buffer.alloc(0);
    this.from = this.to = 0;
    rmSync(this.path, { force: true });
  }
}

/**
 * The features of a request's uploaded files, held compactly: positions, geometry types and
 * countries in typed arrays, the rows themselves (names, attributes, geometries other than
 * points) in spool files read back only for the rows an answer shows or a test reads. A feature
 * asked for is made anew each time (`get`); what a question asks of every row (positions,
 * columns, numeric columns, category values) is answered from what was gathered while reading.
 */
export class UploadSet {
  private segments: Segment[] = [];
  private merged: ColumnStats | null = null;
  private disposed = false;
  length = 0;

  /** A set of features already made (a small file, a test's, a saved set's JSON). */
  static of(features: readonly UploadFeature[], file = ''): UploadSet {
    const set = new UploadSet();
    if (!features.length) return set;
    const n = features.length;
    const lon = new Float64Array(n);
    const lat = new Float64Array(n);
    const types = new Uint8Array(n);
    const stats = new ColumnStats();
    const country = new Uint16Array(n);
    const countries = [''];
    const codes = new Map<string, number>([['', 0]]);
    for (let i = 0; i < n; i++) {
      const f = features[i]!;
      lon[i] = f.lon;
      lat[i] = f.lat;
      types[i] = Math.max(1, GEOMETRY_TYPES.indexOf(f.geometry.type as (typeof GEOMETRY_TYPES)[number]));
      stats.add(f.attributes);
      let c = codes.get(f.country);
      if (c === undefined) codes.set(f.country, (c = countries.push(f.country) - 1));
      country[i] = c;
    }
    set.push({ start: 0, count: n, file: features[0]!.file || file, lon, lat, types, country, countries, stats, features: [...features] });
    return set;
  }

  /** One file's features as a parsing worker wrote them. */
  static fromPart(p: UploadPart): UploadSet {
    const set = new UploadSet();
    set.push({
      start: 0,
      count: p.count,
      file: p.file,
      lon: p.lon,
      lat: p.lat,
      types: p.types,
      country: new Uint16Array(p.count),
      countries: [''],
      stats: ColumnStats.from(p.columns),
      spool: new Spool(p.spool, p.offsets, p.typed),
    });
    return set;
  }

  /** The features of several sets in order, as one: the sets given are left empty, their spools this one's to dispose of. */
  static concat(sets: readonly UploadSet[]): UploadSet {
    const set = new UploadSet();
    for (const s of sets) {
      for (const seg of s.segments) set.push(seg);
      s.segments = [];
      s.length = 0;
      s.merged = null;
    }
    return set;
  }

  private push(seg: Segment): void {
    seg.start = this.length;
    this.segments.push(seg);
    this.length += seg.count;
    this.merged = null;
  }

  private seg(i: number): Segment {
    const s = this.segments;
    for (let k = s.length - 1; k >= 0; k--) if (i >= s[k]!.start) return s[k]!;
    throw new RangeError(`no uploaded feature ${i}`);
  }

  lon(i: number): number {
    const s = this.seg(i);
    return s.lon[i - s.start]!;
  }

  lat(i: number): number {
    const s = this.seg(i);
    return s.lat[i - s.start]!;
  }

  country(i: number): string {
    const s = this.seg(i);
    return s.countries[s.country[i - s.start]!]!;
  }

  file(i: number): string {
    const s = this.seg(i);
    return s.features ? s.features[i - s.start]!.file : s.file;
  }

  type(i: number): Geometry['type'] {
    const s = this.seg(i);
    return s.features ? s.features[i - s.start]!.geometry.type : GEOMETRY_TYPES[s.types[i - s.start]!]!;
  }

  geometry(i: number): Geometry {
    const s = this.seg(i);
    const j = i - s.start;
    if (s.features) return s.features[j]!.geometry;
    if (s.types[j] === 0) return { type: 'Point', coordinates: [s.lon[j]!, s.lat[j]!] };
    return s.spool!.row(j)[3]!;
  }

  attributes(i: number): Record<string, unknown> {
    const s = this.seg(i);
    const j = i - s.start;
    return s.features ? s.features[j]!.attributes : s.spool!.row(j)[4];
  }

  /** The feature, whole. */
  get(i: number): UploadFeature {
    const s = this.seg(i);
    const j = i - s.start;
    if (s.features) return s.features[j]!;
    if (this.disposed) throw new Error('the uploaded features were let go');
    const [id, name, address, geometry, attributes] = s.spool!.row(j);
    const lon = s.lon[j]!;
    const lat = s.lat[j]!;
    return { id, file: s.file, name, address, geometry: geometry ?? { type: 'Point', coordinates: [lon, lat] }, lon, lat, country: s.countries[s.country[j]!]!, attributes };
  }

  /** Every feature, made at once: for small sets (tests, a saved set's JSON). */
  all(): UploadFeature[] {
    const out: UploadFeature[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.get(i);
    return out;
  }

  toJSON(): UploadFeature[] {
    return this.all();
  }

  /** Files in the order their features come, each once. */
  /** The geometry types each file holds, read from the type bytes (no feature is made). */
  typesByFile(): Map<string, Set<Geometry['type']>> {
    const out = new Map<string, Set<Geometry['type']>>();
    const add = (file: string, t: Geometry['type']) => {
      let set = out.get(file);
      if (!set) out.set(file, (set = new Set()));
      set.add(t);
    };
    for (const s of this.segments) {
      if (s.features) for (const f of s.features) add(f.file, f.geometry.type);
      else {
        const seen = new Uint8Array(GEOMETRY_TYPES.length);
        for (let j = 0; j < s.count; j++) seen[s.types[j]!] = 1;
        seen.forEach((on, t) => on && add(s.file, GEOMETRY_TYPES[t]!));
      }
    }
    return out;
  }

  files(): string[] {
    const seen = new Set<string>();
    for (const s of this.segments) {
      if (s.features) for (const f of s.features) seen.add(f.file);
      else seen.add(s.file);
    }
    return [...seen];
  }

  /** What the rows' attributes hold, column by column. */
  stats(): ColumnStats {
    if (this.merged) return this.merged;
    const all = new ColumnStats();
    for (const s of this.segments) all.merge(s.stats);
    return (this.merged = all);
  }

  /**
   * Every position in one pair of arrays, which the uploads' point layer then shares: the files'
   * arrays are copied once into these and let go. They are shared memory, so the index worker
   * reads them where they are rather than from a copy.
   */
  positions(): { lon: Float64Array; lat: Float64Array } {
    const s = this.segments;
    if (s.length === 1 && s[0]!.lon.length === this.length && s[0]!.lon.buffer instanceof SharedArrayBuffer) return { lon: s[0]!.lon, lat: s[0]!.lat };
    const lon = new Float64Array(new SharedArrayBuffer(this.length * 8));
    const lat = new Float64Array(new SharedArrayBuffer(this.length * 8));
    for (const seg of s) {
      lon.set(seg.lon.subarray(0, seg.count), seg.start);
      lat.set(seg.lat.subarray(0, seg.count), seg.start);
      seg.lon = lon.subarray(seg.start, seg.start + seg.count);
      seg.lat = lat.subarray(seg.start, seg.start + seg.count);
    }
    return { lon, lat };
  }

  /** Attribute names of any row, in the order first met. */
  columns(): string[] {
    return this.stats().keys();
  }

  /** Each feature's country (ISO alpha-2, '' for none) from its representative point, between slices. */
  async locate(countryAt: (lon: number, lat: number) => string, slice: Slicer): Promise<void> {
    for (const s of this.segments) {
      const codes = new Map(s.countries.map((c, k) => [c, k]));
      for (let j = 0; j < s.count; j++) {
        const cca2 = countryAt(s.lon[j]!, s.lat[j]!);
        let c = codes.get(cca2);
        if (c === undefined) codes.set(cca2, (c = s.countries.push(cca2) - 1));
        s.country[j] = c;
        if (s.features) s.features[j]!.country = cca2;
        if ((j & 255) === 255 && slice.due()) await slice.pause();
      }
    }
  }

  /** Whether the rows are still readable (a set let go at the end of its request is not). */
  get usable(): boolean {
    return !this.disposed;
  }

  /** Closes and removes the spool files: the request that read them is over. */
  dispose(): void {
    this.disposed = true;
    for (const s of this.segments) s.spool?.close();
  }
}
