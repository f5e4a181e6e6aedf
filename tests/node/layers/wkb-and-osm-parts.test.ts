import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Geometry } from 'geojson';
import { afterAll, describe, expect, it } from 'vitest';
import { OsmAssembler } from '../../../electron/local-service/layers/osm/assembler';
import { NodeFile } from '../../../electron/local-service/layers/osm/node-file';
import { NodeStore } from '../../../electron/local-service/layers/osm/node-store';
import { WayFile } from '../../../electron/local-service/layers/osm/way-file';
import { joinRings } from '../../../electron/local-service/layers/osm/rings';
import { WayIndex } from '../../../electron/local-service/layers/osm/way-index';
import { XmlTagScanner } from '../../../electron/local-service/layers/readers/xml-tags';
import { decodeWkb, encodeWkb } from '../../../electron/ground/wkb';

const dir = mkdtempSync(join(tmpdir(), 'fieldlens-wkb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('WKB', () => {
  const shapes: Geometry[] = [
    { type: 'Point', coordinates: [8.5, 47.3] },
    { type: 'LineString', coordinates: [[0, 0], [1, 1], [2, 0]] },
    { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]], [[0.2, 0.1], [0.3, 0.1], [0.3, 0.2], [0.2, 0.1]]] },
    { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] },
    { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] },
    { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]] },
    { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 1] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }] },
  ];
  it.each(shapes)('round-trips a $type', (g) => expect(decodeWkb(encodeWkb(g))).toEqual(g));

  it('decodes hand-written big-endian, ISO Z and EWKB-with-SRID blobs, and refuses a short one', () => {
    // Big-endian point (1.5, -2)
    const be = Buffer.alloc(21);
    be[0] = 0;
    be.writeUInt32BE(1, 1);
    be.writeDoubleBE(1.5, 5);
    be.writeDoubleBE(-2, 13);
    expect(decodeWkb(be)).toEqual({ type: 'Point', coordinates: [1.5, -2] });
    // ISO LineString Z (1002): the third value is dropped
    const z = Buffer.alloc(9 + 2 * 24);
    z[0] = 1;
    z.writeUInt32LE(1002, 1);
    z.writeUInt32LE(2, 5);
    [1, 2, 100, 3, 4, 200].forEach((v, i) => z.writeDoubleLE(v, 9 + i * 8));
    expect(decodeWkb(z)).toEqual({ type: 'LineString', coordinates: [[1, 2], [3, 4]] });
    // EWKB point with SRID 4326 flag
    const e = Buffer.alloc(25);
    e[0] = 1;
    e.writeUInt32LE(0x20000001, 1);
    e.writeUInt32LE(4326, 5);
    e.writeDoubleLE(7, 9);
    e.writeDoubleLE(8, 17);
    expect(decodeWkb(e)).toEqual({ type: 'Point', coordinates: [7, 8] });
    expect(() => decodeWkb(e.subarray(0, 20))).toThrow(/truncated/);
  });
});

describe('OSM node store', () => {
  it('finds every node, in memory and past the memory budget, in and out of order', () => {
    let db: Database.Database | null = null;
    const store = new NodeStore({ memoryNodes: 1000, scratch: () => (db ??= new Database(join(dir, 'nodes.sqlite'))), scratchFile: () => join(dir, 'nodes.bin') });
    const want = new Map<number, [number, number]>();
    for (let id = 1; id <= 5000; id++) {
      const p: [number, number] = [Math.round((-180 + (id % 360)) * 1e7) / 1e7, Math.round((id % 170) * 0.5e7 - 42.5e7) / 1e7];
      want.set(id * 3, p);
      store.add(id * 3, p[0], p[1]);
    }
    store.add(7, 1.25, 2.5); // out of order: goes to disk
    want.set(7, [1.25, 2.5]);
    expect(store.size).toBe(5001);
    expect(store.spilledCount).toBe(4001);
    for (const [id, p] of want) expect(store.get(id)).toEqual(p);
    // A way's nodes at once: close ids on disk (one range read), far apart, in memory and missing.
    const located = (ids: number[]) => {
      const lon = new Int32Array(ids.length);
      const lat = new Int32Array(ids.length);
      return store.locate(ids, lon, lat) ? ids.map((_, i) => [lon[i]! / 1e7, lat[i]! / 1e7]) : null;
    };
    const ids = [4500 * 3, 4501 * 3, 4502 * 3, 7, 30, 4999 * 3, 3, 6, 9];
    expect(located(ids)).toEqual(ids.map((id) => want.get(id)));
    expect(located([4000 * 3, 4001 * 3])).toEqual([want.get(12000), want.get(12003)]);
    // Far apart on disk (one lookup each), and in memory in reverse order.
    expect(located([5000 * 3, 1200 * 3, 9, 6, 3])).toEqual([want.get(15000), want.get(3600), want.get(9), want.get(6), want.get(3)]);
    expect(located([3, 4, 6])).toBeNull();
    expect(located([4500 * 3, 4500 * 3 + 1])).toBeNull();
    expect(store.get(4)).toBeNull();
    expect(store.get(10 ** 9)).toBeNull();
    store.close();
    (db as Database.Database | null)?.close();
  });
});

describe('OSM way geometries for relations', () => {
  it('builds a multipolygon from its ways whether they were kept in memory, in the scratch file or, out of order, in the scratch table', () => {
    const build = (wayMemoryBytes: number, file: string, wayOrder: number[]) => {
      let db: Database.Database | null = null;
      const osm = new OsmAssembler({ memoryNodes: 1000, wayMemoryBytes, scratch: () => (db ??= new Database(join(dir, file))), scratchFile: (name) => join(dir, `${file}.${name}`) });
      // A square of four corners, its outer ring in two ways (the second drawn backwards).
      const corners: [number, number][] = [[8, 47], [8.01, 47], [8.01, 47.01], [8, 47.01]];
      corners.forEach(([lon, lat], i) => osm.node({ id: i + 1, lon, lat, tags: {} }));
      const refs: Record<number, number[]> = { 10: [1, 2, 3], 11: [1, 4, 3] };
      for (const id of wayOrder) osm.way({ id, tags: {}, refs: refs[id]! });
      const f = osm.relation({
        id: 100,
        tags: { type: 'multipolygon', landuse: 'meadow' },
        members: [{ type: 'way', id: 10, role: 'outer' }, { type: 'way', id: 11, role: 'outer' }],
      });
      const usedTable = db !== null;
      osm.close();
      (db as Database.Database | null)?.close();
      return { geometry: f?.geometry, usedTable };
    };
    const inMemory = build(64 * 1024 * 1024, 'ways-memory.sqlite', [10, 11]);
    const inFile = build(0, 'ways-file.sqlite', [10, 11]);
    const inTable = build(0, 'ways-table.sqlite', [11, 10]);
    expect(inMemory.usedTable).toBe(false);
    expect(inFile.usedTable).toBe(false);
    expect(inTable.usedTable).toBe(true);
    expect(inMemory.geometry?.type).toBe('Polygon');
    const ring = (inMemory.geometry as { coordinates: number[][][] }).coordinates[0]!;
    // The ring's corners are the square's, each once, closed.
    expect(ring).toHaveLength(5);
    expect(ring[0]).toEqual(ring[4]);
    expect(new Set(ring.slice(0, 4).map((p) => p.join()))).toEqual(new Set(['8,47', '8.01,47', '8.01,47.01', '8,47.01']));
    expect(inFile.geometry).toEqual(inMemory.geometry);
    expect(inTable.geometry).toEqual(inMemory.geometry);
  });
});

describe('OSM scratch files', () => {
  it('give back every node of a million and more, across pages read again after leaving the cache', () => {
    const file = new NodeFile(() => join(dir, 'node-file.bin'));
    const N = 1_500_000;
    // Ids with gaps of 2 to 4; coordinates from the index, so the expected answer needs no copy.
    const idAt = (i: number) => i * 3 + (i % 2) + 5;
    for (let i = 0; i < N; i++) file.append(idAt(i), i % 3_600_000_000, -i);
    const lon = new Int32Array(1);
    const lat = new Int32Array(1);
    let s = 11;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
    let wrong = 0;
    for (let k = 0; k < 20_000; k++) {
      const i = Math.floor(rand() * N);
      if (!file.find(idAt(i), lon, lat, 0) || lon[0] !== i || lat[0] !== -i) wrong++;
    }
    // In order from the start, as a way's nodes are read: after random reads that filled the cache.
    for (let i = 0; i < N; i += 997) if (!file.find(idAt(i), lon, lat, 0) || lon[0] !== i) wrong++;
    expect(wrong).toBe(0);
    // Ids between two nodes, before the first and after the last are not there.
    expect(file.find(idAt(1000) + 1, lon, lat, 0)).toBe(false);
    expect(file.find(1, lon, lat, 0)).toBe(false);
    expect(file.find(idAt(N - 1) + 1, lon, lat, 0)).toBe(false);
    file.close();
  });

  it('give back every way kept, of any length up to a page, across pages', () => {
    const file = new WayFile(() => join(dir, 'way-file.bin'));
    const want = new Map<number, number[]>();
    let id = 2 ** 33; // ids past 32 bits are kept whole
    let s = 3;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
    let refused = 0;
    for (let w = 0; w < 20_000; w++) {
      id += 1 + Math.floor(rand() * 5);
      const n = w === 777 ? 8000 : 2 + Math.floor(rand() * 40);
      const lon = Int32Array.from({ length: n }, (_, i) => w * 100 + i);
      const lat = Int32Array.from({ length: n }, (_, i) => -w - i);
      if (!file.fits(id, n)) refused++;
      file.append(id, lon, lat, n);
      want.set(id, Array.from({ length: n }, (_, i) => [w * 100 + i, -w - i]).flat());
    }
    expect(refused).toBe(0);
    expect(file.fits(id, 2)).toBe(false); // not after the last id
    expect(file.fits(id + 1, 9000)).toBe(false); // longer than a page
    let wrong = 0;
    for (const [k, coords] of want) {
      const got = file.get(k);
      if (!got || got.length !== coords.length || got.some((v, i) => v !== coords[i])) wrong++;
      if (!want.has(k - 1) && file.get(k - 1) !== null) wrong++;
    }
    expect(wrong).toBe(0);
    expect(file.get(2 ** 33)).toBeNull();
    expect(file.get(id + 1)).toBeNull();
    file.close();
  });
});

describe('OSM way index', () => {
  it('finds ways given in id order, out of order and again, and forgets those kept elsewhere', () => {
    const index = new WayIndex();
    const want = new Map<number, number>();
    for (let id = 1; id <= 3000; id += 2) {
      index.set(id, id * 10);
      want.set(id, id * 10);
    }
    index.set(4, 40); // out of order
    want.set(4, 40);
    index.set(7, 77); // a later copy of way 7
    want.set(7, 77);
    index.delete(9); // way 9 again, kept on disk this time
    want.delete(9);
    index.delete(4);
    want.delete(4);
    for (let id = 0; id <= 3002; id++) expect(index.get(id)).toBe(want.get(id));
  });
});

describe('multipolygon rings', () => {
  it('joins segments in any direction and refuses an open ring', () => {
    const a = [[0, 0], [1, 0], [1, 1]];
    const b = [[0, 0], [0, 1], [1, 1]]; // runs the other way round
    expect(joinRings([a, b])).toEqual([[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]);
    expect(joinRings([a, [[1, 1], [0, 1]]])).toBeNull();
  });
});

describe('XML tag scanner', () => {
  it('reads tags split across chunks, quoted ">" and entities', () => {
    const xml = `<?xml version="1.0"?><!-- a > comment --><osm><node id="1" lat="1" lon="2"><tag k="name" v="A &amp; B &gt; C &#233;"/><tag k='note' v='x > y'/></node></osm>`;
    const s = new XmlTagScanner();
    const tags = [];
    for (let i = 0; i < xml.length; i += 7) tags.push(...s.push(xml.slice(i, i + 7)));
    s.end();
    expect(tags.map((t) => (t.close ? `/${t.name}` : t.name))).toEqual(['osm', 'node', 'tag', 'tag', '/node', '/osm']);
    expect(tags[2]!.attrs).toEqual({ k: 'name', v: 'A & B > C é' });
    expect(tags[3]!.attrs).toEqual({ k: 'note', v: 'x > y' });
    const cut = new XmlTagScanner();
    expect([...cut.push('<osm><node id="1" lat')].map((t) => t.name)).toEqual(['osm']);
    expect(() => cut.end()).toThrow(/ends inside a tag/);
    const runaway = new XmlTagScanner();
    expect(() => [...runaway.push('<osm ' + 'x'.repeat(2 << 20))]).toThrow(/without closing/);
  });
});
