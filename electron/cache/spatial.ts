/** [minx, miny, maxx, maxy] in degrees. */
export type BBox = [number, number, number, number];

type Coords = number | Coords[];

function extend(box: BBox, c: Coords): void {
  if (!Array.isArray(c)) return;
  if (typeof c[0] === 'number') {
    const x = c[0];
    const y = c[1];
    if (typeof y !== 'number') return;
    if (x < box[0]) box[0] = x;
    if (y < box[1]) box[1] = y;
    if (x > box[2]) box[2] = x;
    if (y > box[3]) box[3] = y;
    return;
  }
  for (const child of c) extend(box, child);
}

/** Bounding box of any GeoJSON geometry; null for empty or missing geometry. */
export function geometryBBox(geometry: unknown): BBox | null {
  if (!geometry || typeof geometry !== 'object') return null;
  const g = geometry as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (g.type === 'Point' && Array.isArray(g.coordinates)) {
    const [x, y] = g.coordinates as unknown[];
    return typeof x === 'number' && typeof y === 'number' ? [x, y, x, y] : null;
  }
  const box: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  if (g.type === 'GeometryCollection' && Array.isArray(g.geometries)) {
    for (const child of g.geometries) {
      const b = geometryBBox(child);
      if (b) {
        box[0] = Math.min(box[0], b[0]);
        box[1] = Math.min(box[1], b[1]);
        box[2] = Math.max(box[2], b[2]);
        box[3] = Math.max(box[3], b[3]);
      }
    }
  } else if (Array.isArray(g.coordinates)) extend(box, g.coordinates as Coords);
  return box[0] === Infinity ? null : box;
}

// Spreads the low 16 bits of n over the even bits of a 32-bit value (Morton / Z-order).
function spread(n: number): number {
  n &= 0xffff;
  n = (n | (n << 8)) & 0x00ff00ff;
  n = (n | (n << 4)) & 0x0f0f0f0f;
  n = (n | (n << 2)) & 0x33333333;
  n = (n | (n << 1)) & 0x55555555;
  return n >>> 0;
}

/**
 * Boxes of many geometries in one flat array: [minx, miny, maxx, maxy] per item, NaN where an
 * item has no geometry. Points (nearly every item) take a fast path with no allocation.
 */
export function geometryBoxes(geometries: readonly unknown[]): Float64Array {
  const n = geometries.length;
  const out = new Float64Array(n * 4);
  for (let i = 0; i < n; i++) {
    const g = geometries[i] as { type?: unknown; coordinates?: unknown } | null | undefined;
    const o = i * 4;
    if (g && g.type === 'Point' && Array.isArray(g.coordinates)) {
      const x = g.coordinates[0];
      const y = g.coordinates[1];
      if (typeof x === 'number' && typeof y === 'number') {
        out[o] = out[o + 2] = x;
        out[o + 1] = out[o + 3] = y;
        continue;
      }
    }
    const b = geometryBBox(g);
    if (b) out.set(b, o);
    else out.fill(NaN, o, o + 4);
  }
  return out;
}

/**
 * Order of items along a Z-order curve of their box centres inside `extent`, so that runs of
 * consecutive items are spatially compact (the R*Tree indexes runs, not single items). Equal
 * keys keep item order; items without geometry come last, in item order.
 */
export function zOrder(boxes: Float64Array, extent: BBox): Uint32Array {
  const n = boxes.length / 4;
  const w = extent[2] - extent[0] || 1;
  const h = extent[3] - extent[1] || 1;
  const out = new Uint32Array(n);
  let keys = new Uint32Array(n);
  let order = out;
  let m = 0;
  let last = n;
  // Items without geometry fill the end from the back; reversed below to keep their order.
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    if (boxes[o] !== boxes[o]) {
      out[--last] = i;
      continue;
    }
    const qx = Math.floor((((boxes[o]! + boxes[o + 2]!) / 2 - extent[0]) / w) * 65535);
    const qy = Math.floor((((boxes[o + 1]! + boxes[o + 3]!) / 2 - extent[1]) / h) * 65535);
    keys[m] = (spread(qx) | (spread(qy) << 1)) >>> 0;
    order[m++] = i;
  }
  out.subarray(last).reverse();
  // A stable radix sort of the keys, a byte at a time (a few passes over a small array, where a
  // comparison sort of 2,000 keys costs several times more).
  let keys2 = new Uint32Array(m);
  let order2 = new Uint32Array(m);
  const count = new Uint32Array(256);
  for (let shift = 0; shift < 32; shift += 8) {
    count.fill(0);
    for (let i = 0; i < m; i++) count[(keys[i]! >>> shift) & 255]!++;
    let sum = 0;
    for (let b = 0; b < 256; b++) {
      const c = count[b]!;
      count[b] = sum;
      sum += c;
    }
    for (let i = 0; i < m; i++) {
      const at = count[(keys[i]! >>> shift) & 255]!++;
      keys2[at] = keys[i]!;
      order2[at] = order[i]!;
    }
    [keys, keys2] = [keys2, keys];
    [order, order2] = [order2, order];
  }
  // Four passes: the sorted order is back in the array it started in.
  return out;
}
