import KDBush from 'kdbush';
import type { Summary } from './store';

/** What queries need of every photo, held in memory between scans. */
export interface Snapshot {
  rowids: Int32Array;
  lon: Float64Array;
  lat: Float64Array;
  year: Int32Array;
  regionId: (string | null)[];
  /** Sort key: capture time text ("" when unknown), newest first in listings. */
  takenAt: string[];
  ids: string[];
  /** 1 for videos (listed by /v1/stream only: /search records need a still image). */
  isVideo: Uint8Array;
  /** Position of a rowid in the arrays above. */
  indexOf: Map<number, number>;
  /** Nearest-neighbour index over lon/lat (geokdbush queries it). */
  kd: KDBush | null;
  /** The storage generation the snapshot was read at (-1: not read yet). */
  generation: number;
}

export const EMPTY_SNAPSHOT: Snapshot = {
  rowids: new Int32Array(0),
  lon: new Float64Array(0),
  lat: new Float64Array(0),
  year: new Int32Array(0),
  regionId: [],
  takenAt: [],
  ids: [],
  isVideo: new Uint8Array(0),
  indexOf: new Map(),
  kd: null,
  generation: -1,
};

/** The in-memory arrays and nearest-neighbour index over the photos' summaries. */
export function snapshotOf(rows: Summary[], generation: number): Snapshot {
  const n = rows.length;
  const s: Snapshot = {
    rowids: new Int32Array(n),
    lon: new Float64Array(n),
    lat: new Float64Array(n),
    year: new Int32Array(n),
    regionId: new Array<string | null>(n),
    takenAt: new Array<string>(n),
    ids: new Array<string>(n),
    isVideo: new Uint8Array(n),
    indexOf: new Map(),
    kd: null,
    generation,
  };
  rows.forEach((r, i) => {
    s.rowids[i] = r.rowid;
    s.lon[i] = r.lon;
    s.lat[i] = r.lat;
    s.year[i] = r.year ?? 0;
    s.regionId[i] = r.region_id;
    s.takenAt[i] = r.taken_at ?? '';
    s.ids[i] = r.id;
    s.isVideo[i] = r.is_video;
    s.indexOf.set(r.rowid, i);
  });
  if (n) {
    const kd = new KDBush(n);
    for (let i = 0; i < n; i++) kd.add(s.lon[i]!, s.lat[i]!);
    kd.finish();
    s.kd = kd;
  }
  return s;
}
