/**
 * A minimal PMTiles v3 writer, from the specification (github.com/protomaps/PMTiles, spec/v3):
 * a 127-byte header, an uncompressed root directory (no leaf directories), empty JSON metadata,
 * and the tile data. Tiles of equal content are stored once, consecutive ones as one run.
 * Written for tests, apart from the readers under test.
 */

export interface PmTile {
  z: number;
  x: number;
  y: number;
  data: Buffer;
}

export interface PmTilesOptions {
  /** Tile type byte: 1 MVT, 2 PNG, 3 JPEG, 4 WebP, 5 AVIF. */
  tileType: number;
  bounds?: [number, number, number, number];
}

/** The Hilbert-curve tile id of spec section 3.1: tiles of lower zooms first, then along the curve. */
export function tileId(z: number, x: number, y: number): number {
  let acc = 0;
  for (let i = 0; i < z; i++) acc += 4 ** i;
  let d = 0;
  for (let s = 2 ** (z - 1); s >= 1; s /= 2) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    // Rotate the quadrant so the curve continues (the classic Hilbert d2xy inverse).
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      [x, y] = [y, x];
    }
  }
  return acc + d;
}

function varint(n: number, out: number[]): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

interface Entry {
  id: number;
  offset: number;
  length: number;
  run: number;
}

/** The PMTiles archive holding `tiles`. */
export function writePmTiles(tiles: readonly PmTile[], options: PmTilesOptions): Buffer {
  const sorted = tiles.map((t) => ({ id: tileId(t.z, t.x, t.y), t })).sort((a, b) => a.id - b.id);
  const contents: Buffer[] = [];
  const offsetOf = new Map<string, { offset: number; length: number }>();
  let dataLength = 0;
  const entries: Entry[] = [];
  for (const { id, t } of sorted) {
    const key = t.data.toString('base64');
    let at = offsetOf.get(key);
    if (!at) {
      at = { offset: dataLength, length: t.data.length };
      offsetOf.set(key, at);
      contents.push(t.data);
      dataLength += t.data.length;
    }
    const last = entries.at(-1);
    if (last && last.offset === at.offset && last.id + last.run === id) last.run++;
    else entries.push({ id, offset: at.offset, length: at.length, run: 1 });
  }

  const dir: number[] = [];
  varint(entries.length, dir);
  let prevId = 0;
  for (const e of entries) {
    varint(e.id - prevId, dir);
    prevId = e.id;
  }
  for (const e of entries) varint(e.run, dir);
  for (const e of entries) varint(e.length, dir);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    // 0 means "right after the previous entry's tile"; anything else is offset + 1.
    varint(i > 0 && prev && e.offset === prev.offset + prev.length ? 0 : e.offset + 1, dir);
  });
  const root = Buffer.from(dir);
  const metadata = Buffer.from('{}');
  const data = Buffer.concat(contents);

  const header = Buffer.alloc(127);
  header.write('PMTiles', 0, 'ascii');
  header[7] = 3;
  const rootOffset = 127;
  const metaOffset = rootOffset + root.length;
  const dataOffset = metaOffset + metadata.length;
  const u64 = (at: number, v: number) => header.writeBigUInt64LE(BigInt(v), at);
  u64(8, rootOffset);
  u64(16, root.length);
  u64(24, metaOffset);
  u64(32, metadata.length);
  u64(40, dataOffset); // no leaf directories: offset where they would be, length 0
  u64(48, 0);
  u64(56, dataOffset);
  u64(64, data.length);
  u64(72, sorted.length); // addressed tiles
  u64(80, entries.length); // tile entries
  u64(88, contents.length); // tile contents
  header[96] = 1; // clustered: tile data in id order
  header[97] = 1; // internal compression: none
  header[98] = 1; // tile compression: none
  header[99] = options.tileType;
  const zooms = sorted.map((s) => s.t.z);
  header[100] = Math.min(...zooms);
  header[101] = Math.max(...zooms);
  const [w, s, e, n] = options.bounds ?? [-180, -85, 180, 85];
  const e7 = (at: number, v: number) => header.writeInt32LE(Math.round(v * 1e7), at);
  e7(102, w);
  e7(106, s);
  e7(110, e);
  e7(114, n);
  header[118] = Math.min(...zooms);
  e7(119, (w + e) / 2);
  e7(123, (s + n) / 2);
  return Buffer.concat([header, root, metadata, data]);
}
