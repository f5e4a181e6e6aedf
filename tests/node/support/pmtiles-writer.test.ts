import { inflateSync } from 'node:zlib';
import { PMTiles, TileType, type RangeResponse, type Source } from 'pmtiles';
import { describe, expect, it } from 'vitest';
import { pngOf, solidPng } from '../../support/png';
import { tileId, writePmTiles } from '../../support/pmtiles-writer';

/** The archive as a pmtiles Source, read from memory. */
const memory = (bytes: Buffer): Source => ({
  getKey: () => 'memory',
  getBytes: async (offset: number, length: number): Promise<RangeResponse> => ({
    data: bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + length) as ArrayBuffer,
  }),
});

describe('the test PMTiles writer', () => {
  it('numbers tiles along the Hilbert curve as the specification lists them', () => {
    // Spec v3, section 3.1: z0, then z1 (0,0) (0,1) (1,1) (1,0), then z2 from (0,0).
    expect([tileId(0, 0, 0), tileId(1, 0, 0), tileId(1, 0, 1), tileId(1, 1, 1), tileId(1, 1, 0), tileId(2, 0, 0)]).toEqual([0, 1, 2, 3, 4, 5]);
    expect(tileId(3, 0, 0)).toBe(1 + 4 + 16);
  });

  it('writes an archive the pmtiles reader opens, with every tile back byte for byte', async () => {
    const west = solidPng(8, [200, 30, 155]);
    const east = solidPng(8, [30, 200, 180]);
    const half = pngOf(8, (x) => (x < 4 ? [200, 30, 155] : [30, 200, 180]));
    const tiles = [
      { z: 0, x: 0, y: 0, data: half },
      { z: 1, x: 0, y: 0, data: west },
      { z: 1, x: 0, y: 1, data: west },
      { z: 1, x: 1, y: 0, data: east },
      { z: 1, x: 1, y: 1, data: east },
    ];
    const bytes = writePmTiles(tiles, { tileType: 2, bounds: [-180, -85, 180, 85] });
    const archive = new PMTiles(memory(bytes));
    const h = await archive.getHeader();
    expect([h.specVersion, h.tileType, h.minZoom, h.maxZoom, h.minLon, h.maxLat]).toEqual([3, TileType.Png, 0, 1, -180, 85]);
    expect([h.numAddressedTiles, h.numTileContents]).toEqual([5, 3]);
    for (const t of tiles) {
      const got = await archive.getZxy(t.z, t.x, t.y);
      expect(Buffer.from(got!.data).equals(t.data)).toBe(true);
    }
    expect(await archive.getZxy(2, 0, 0)).toBeUndefined();
  });

  it('writes PNGs whose pixels are the colours asked for', () => {
    const png = pngOf(4, (x, y) => [x * 10, y * 20, 7]);
    // IDAT starts after the signature (8), IHDR (25) and its own length and type (8).
    const idatLength = png.readUInt32BE(33);
    const raw = inflateSync(png.subarray(41, 41 + idatLength));
    const px = (x: number, y: number) => [...raw.subarray(y * 13 + 1 + x * 3, y * 13 + 4 + x * 3)];
    expect(px(3, 2)).toEqual([30, 40, 7]);
    expect(raw[0]).toBe(0);
  });
});
