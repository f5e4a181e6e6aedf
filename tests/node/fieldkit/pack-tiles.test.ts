import { describe, expect, it } from 'vitest';
import { createTileFetcher } from '../../../electron/fieldkit/pack/fetch-tile';
import { tileRanges } from '../../../electron/fieldkit/pack/area';

const signal = new AbortController().signal;

describe('basemap tiles for a pack', () => {
  it('asks the tile server by z/x/y with an identifying User-Agent and keeps the image bytes', async () => {
    const seen: { url: string; ua: string | null }[] = [];
    const fetchTile = createTileFetcher(
      async (url, init) => {
        seen.push({ url: String(url), ua: new Headers(init?.headers).get('user-agent') });
        return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { 'content-type': 'image/png' } });
      },
      'Fieldlens/0.1.0 (offline area pack)',
    );
    expect([...(await fetchTile(7, 67, 43, signal))]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(seen).toEqual([{ url: 'https://tile.openstreetmap.org/7/67/43.png', ua: 'Fieldlens/0.1.0 (offline area pack)' }]);
  });

  it('says which tile failed and why: an HTTP status, or an answer that is not an image', async () => {
    const status = createTileFetcher(async () => new Response('no', { status: 429 }), 'ua');
    await expect(status(3, 4, 2, signal)).rejects.toMatchObject({ code: 'HTTP', message: expect.stringContaining('3/4/2') });
    const html = createTileFetcher(async () => new Response('<html>', { headers: { 'content-type': 'text/html' } }), 'ua');
    await expect(html(3, 4, 2, signal)).rejects.toThrow(/not a PNG or JPEG/);
    const down = createTileFetcher(async () => Promise.reject(new TypeError('fetch failed')), 'ua');
    await expect(down(3, 4, 2, signal)).rejects.toMatchObject({ code: 'NETWORK' });
  });

  it('covers a box with the tiles the slippy-map formula gives at each zoom', () => {
    // Lyon's box: tile numbers from the OSM wiki formula, computed here.
    const box: [number, number, number, number] = [4.7, 45.6, 5.0, 45.9];
    const tx = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
    const ty = (lat: number, z: number) => Math.floor(((1 - Math.asinh(Math.tan((lat * Math.PI) / 180)) / Math.PI) / 2) * 2 ** z);
    const ranges = tileRanges(box, 14);
    expect(ranges).toHaveLength(15);
    for (const r of ranges) expect(r).toEqual({ z: r.z, x0: tx(box[0], r.z), x1: tx(box[2], r.z), y0: ty(box[3], r.z), y1: ty(box[1], r.z) });
  });
});
