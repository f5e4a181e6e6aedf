import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Geometry } from 'geojson';
import { afterAll, describe, expect, it } from 'vitest';
import { OsmAssembler } from '../../../electron/local-service/layers/osm/assembler';
import { NodeStore } from '../../../electron/local-service/layers/osm/node-store';
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
    const store = new NodeStore({ memoryNodes: 1000, scratch: () => (db ??= new Database(join(dir, 'nodes.sqlite'))) });
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
    (db as Database.Database | null)?.close();
  });
});

describe('OSM way geometries for relations', () => {
  it('builds a multipolygon from its ways whether they were kept in memory or in the scratch file', () => {
    const build = (wayMemoryBytes: number, file: string) => {
      let db: Database.Database | null = null;
      const osm = new OsmAssembler({ memoryNodes: 1000, wayMemoryBytes, scratch: () => (db ??= new Database(join(dir, file))) });
      // A square of four corners, its outer ring in two ways (the second drawn backwards).
      const corners: [number, number][] = [[8, 47], [8.01, 47], [8.01, 47.01], [8, 47.01]];
      corners.forEach(([lon, lat], i) => osm.node({ id: i + 1, lon, lat, tags: {} }));
      osm.way({ id: 10, tags: {}, refs: [1, 2, 3] });
      osm.way({ id: 11, tags: {}, refs: [1, 4, 3] });
      const f = osm.relation({
        id: 100,
        tags: { type: 'multipolygon', landuse: 'meadow' },
        members: [{ type: 'way', id: 10, role: 'outer' }, { type: 'way', id: 11, role: 'outer' }],
      });
      const usedDisk = db !== null;
      (db as Database.Database | null)?.close();
      return { geometry: f?.geometry, usedDisk };
    };
    const inMemory = build(64 * 1024 * 1024, 'ways-memory.sqlite');
    const onDisk = build(0, 'ways-disk.sqlite');
    expect(inMemory.usedDisk).toBe(false);
    expect(onDisk.usedDisk).toBe(true);
    expect(inMemory.geometry?.type).toBe('Polygon');
    const ring = (inMemory.geometry as { coordinates: number[][][] }).coordinates[0]!;
    // The ring's corners are the square's, each once, closed.
    expect(ring).toHaveLength(5);
    expect(ring[0]).toEqual(ring[4]);
    expect(new Set(ring.slice(0, 4).map((p) => p.join()))).toEqual(new Set(['8,47', '8.01,47', '8.01,47.01', '8,47.01']));
    expect(onDisk.geometry).toEqual(inMemory.geometry);
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
