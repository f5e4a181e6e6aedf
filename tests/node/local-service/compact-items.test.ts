import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, loadCatalog, pointLayer } from '../../../electron/local-service/catalog/catalog';
import { UPLOADS } from '../../../electron/local-service/catalog/kinds/uploads';
import { execute } from '../../../electron/local-service/query/execute';
import { CompactItems } from '../../../electron/local-service/query/item-list';
import { sortSliced } from '../../../electron/local-service/query/sort-sliced';
import type { Plan } from '../../../electron/local-service/query/plan';
import { packItems, unpackItems } from '../../../electron/local-service/store';
import { createSlicer, type UploadFeature } from '../../../electron/local-service/uploads';
import { UploadSet } from '../../../electron/local-service/upload/set';

let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

/** Random sites; every 7th repeats the one before it (equal distances), every 5th has no capacity. */
function sites(n: number): UploadFeature[] {
  const out: UploadFeature[] = [];
  for (let i = 0; i < n; i++) {
    const prev = out[i - 1];
    const lon = i % 7 === 6 && prev ? prev.lon : rand() * 60 - 10;
    const lat = i % 7 === 6 && prev ? prev.lat : rand() * 40 + 30;
    const capacity = i % 5 === 4 ? '' : String(Math.floor(rand() * 50));
    out.push({ id: String(i), file: 'sites.csv', name: `s${i}`, address: '', geometry: { type: 'Point', coordinates: [lon, lat] }, lon, lat, country: '', attributes: { capacity } });
  }
  return out;
}

const PARIS = { lon: 2.3522, lat: 48.8566 };
const rad = Math.PI / 180;
const km = (f: UploadFeature) => {
  const h = Math.sin(((f.lat - PARIS.lat) * rad) / 2) ** 2 + Math.cos(f.lat * rad) * Math.cos(PARIS.lat * rad) * Math.sin(((f.lon - PARIS.lon) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
};
const paris = { type: 'points' as const, points: [{ ...PARIS, label: 'Paris' }], label: 'Paris' };
const plan = (extra: Partial<Plan>): Plan => ({ subject: UPLOADS.name, conditions: [], countries: [], unread: [], notRead: [], ignored: [], warnings: [], ...extra }) as Plan;

/** The answer over the raw rows: the rows kept, in the order asked, ties by row number. */
function bruteForce(rows: UploadFeature[], extra: Partial<Plan>): number[] {
  let ids = rows.map((_, i) => i);
  if (extra.within) ids = ids.filter((i) => km(rows[i]!) <= extra.within!.radiusKm);
  const cap = (i: number) => (rows[i]!.attributes['capacity'] === '' ? NaN : Number(rows[i]!.attributes['capacity']));
  // With something to measure from and no order asked, nearest first.
  const order = extra.order ?? (extra.within || extra.distanceRef ? 'distance' : undefined);
  if (order === 'distance') ids.sort((a, b) => km(rows[a]!) - km(rows[b]!) || a - b);
  if (order === 'distance_desc') ids.sort((a, b) => km(rows[b]!) - km(rows[a]!) || a - b);
  if (extra.orderBy) {
    const sign = extra.order === 'population_desc' ? -1 : 1;
    ids.sort((a, b) => Number(Number.isNaN(cap(a))) - Number(Number.isNaN(cap(b))) || sign * (cap(a) - cap(b)) || a - b);
  }
  return extra.top !== undefined ? ids.slice(0, extra.top) : ids;
}

const cases: [string, Partial<Plan>][] = [
  ['every row', {}],
  ['within 800 km', { within: { reference: paris, radiusKm: 800 } }],
  ['nearest first', { distanceRef: paris, order: 'distance' }],
  ['the 40 farthest', { distanceRef: paris, order: 'distance_desc', top: 40 }],
  ['the 25 largest by capacity', { order: 'population_desc', orderBy: { keys: ['capacity'], label: 'capacity' }, top: 25 }],
  ['smallest by capacity within 1500 km', { within: { reference: paris, radiusKm: 1500 }, order: 'population_asc', orderBy: { keys: ['capacity'], label: 'capacity' } }],
];

describe('uploaded rows held as compact items', () => {
  const catalog = loadCatalog(defaultCatalogDir());
  for (const n of [600, 5_000]) {
    const rows = sites(n);
    const features = UploadSet.of(rows);
    const layer = pointLayer(UPLOADS.name, rows.map((f) => f.lon), rows.map((f) => f.lat), rows.map((f) => f.country));
    for (const [name, extra] of cases) {
      it(`${name} (${n} rows): the rows and distances of a brute force over the raw rows`, async () => {
        const ex = await execute({ plan: plan(extra), catalog, uploads: { features, layer }, coordinates: [], h3Cells: [] });
        expect(ex.items).toBeInstanceOf(CompactItems);
        const want = bruteForce(rows, extra);
        const got = ex.items.slice();
        expect(got.map((x) => x.i)).toEqual(want);
        expect(got.every((x) => x.k === UPLOADS.name)).toBe(true);
        if (extra.within || extra.distanceRef) for (const x of got) expect(x.d! / 1000).toBeCloseTo(km(rows[x.i]!), 3);
        else expect(got.some((x) => x.d !== undefined)).toBe(false);
        // A page is the same rows as the whole list's first ones.
        expect(ex.items.slice(0, 10)).toEqual(got.slice(0, 10));
        expect(ex.items.at(-1)).toEqual(got.at(-1));
        // Packed for the saved set and read back: the same items.
        const packed = packItems(ex.items, catalog.kinds.codes);
        expect(unpackItems(packed.bin, packed.figures, catalog.kinds.codes)).toEqual(got);
      });
    }
  }
});

describe('packed result sets', () => {
  const catalog = loadCatalog(defaultCatalogDir());
  const codes = catalog.kinds.codes;

  it('hold uploaded rows without distances in 4 bytes a row (none for every row in order), and read back the same', async () => {
    const rows = sites(3_000);
    const layer = pointLayer(UPLOADS.name, rows.map((f) => f.lon), rows.map((f) => f.lat), rows.map((f) => f.country));
    const ex = await execute({ plan: plan({}), catalog, uploads: { features: UploadSet.of(rows), layer }, coordinates: [], h3Cells: [] });
    const packed = packItems(ex.items, codes);
    // Every row in file order: no number is stored.
    expect(packed.bin.length).toBeLessThan(16);
    expect(unpackItems(packed.bin, packed.figures, codes)).toEqual(rows.map((_, i) => ({ k: UPLOADS.name, i })));
    // Some rows: 4 bytes each.
    const some = await execute({ plan: plan({ order: 'population_desc', orderBy: { keys: ['capacity'], label: 'capacity' } }), catalog, uploads: { features: UploadSet.of(rows), layer }, coordinates: [], h3Cells: [] });
    const somePacked = packItems(some.items, codes);
    expect(somePacked.bin.length).toBeLessThan(rows.length * 4 + 16);
    expect(unpackItems(somePacked.bin, somePacked.figures, codes)).toEqual(some.items.slice());
  });

  it('read sets packed before the flags: a distance and a kind byte per item', () => {
    const kinds = [catalog.kinds.fallback, UPLOADS.name];
    const items = Array.from({ length: 50 }, (_, j) => ({ k: kinds[j % 2]!, i: j * 3, ...(j % 3 ? { d: j * 10.5 } : {}) }));
    const n = items.length;
    const old = Buffer.alloc(8 + n * 13);
    old.writeUInt32LE(n, 0);
    items.forEach((x, j) => {
      old.writeDoubleLE(x.d ?? NaN, 8 + j * 8);
      old.writeUInt32LE(x.i, 8 + n * 8 + j * 4);
      old.writeUInt8(codes.codeOf(x.k), 8 + n * 12 + j);
    });
    expect(unpackItems(old, '{}', codes)).toEqual(items);
    // Mixed kinds and distances packed now read back the same too.
    const now = packItems(items, codes);
    expect(unpackItems(now.bin, now.figures, codes)).toEqual(items);
  });
});

describe('sorting in slices', () => {
  it('orders 200,000 keys as one native sort does, letting other work run between slices', async () => {
    const n = 200_000;
    const keys = Float64Array.from({ length: n }, () => Math.floor(rand() * 1e6) / 7);
    const want = keys.slice().sort();
    const order = Uint32Array.from({ length: n }, (_, j) => j);
    const ranked = keys.slice();
    const byKey = (a: number, b: number) => ranked[b]! - ranked[a]! || a - b;
    const wantOrder = order.slice().sort(byKey);
    let turns = 0;
    let on = true;
    const tick = () => {
      if (!on) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const slice = createSlicer(2);
    await sortSliced(keys, undefined, slice);
    await sortSliced(order, byKey, slice);
    on = false;
    expect(turns).toBeGreaterThan(2);
    // Compared element by element: a deep equality of such arrays takes minutes.
    expect(keys.every((v, j) => v === want[j])).toBe(true);
    expect(order.every((v, j) => v === wantOrder[j])).toBe(true);
  });
});
