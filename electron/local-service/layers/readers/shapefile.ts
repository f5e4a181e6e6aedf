import { existsSync } from 'node:fs';
import { open as openFile, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { readdirSync } from 'node:fs';
import * as shapefile from 'shapefile';
import { LayerFileError, throwIfAborted, type LayerFeature, type LayerReader, type ReadOptions } from '../types';
import { unpackOtherTags } from './other-tags';
import { judgeWkt, outsideLonLat, REPROJECT_HINT } from './crs';

/** The sidecar of a .shp with another extension, in either letter case. */
function sidecar(shp: string, ext: string): string | null {
  const dir = dirname(shp);
  const stem = basename(shp, extname(shp)).toLowerCase();
  const hit = readdirSync(dir).find((f) => f.toLowerCase() === `${stem}.${ext}`);
  return hit ? join(dir, hit) : null;
}

/** dBASE language driver ids of the code pages in common use (GDAL writes 0x57 and Latin-1 by default). */
const LDID: Record<number, string> = { 0x03: 'windows-1252', 0x57: 'windows-1252', 0x58: 'windows-1252', 0x59: 'windows-1252', 0xc8: 'windows-1250', 0xc9: 'windows-1251', 0xca: 'windows-1253', 0xcb: 'windows-1254' };

/** Record count and text encoding from the .dbf header (bytes 4-7 and the language driver byte 29). */
async function dbfHeader(dbf: string): Promise<{ records: number; encoding: string | null }> {
  const fh = await openFile(dbf, 'r');
  try {
    const b = Buffer.alloc(32);
    await fh.read(b, 0, 32, 0);
    return { records: b.readUInt32LE(4), encoding: LDID[b[29]!] ?? null };
  } finally {
    await fh.close();
  }
}

/**
 * Shapefile with its .dbf (attributes; a layer without them is refused rather than imported
 * nameless) and .prj (CRS): geographic passes, projected is refused with the fix. Without a
 * .prj, coordinates outside lon/lat ranges mean an undeclared projected CRS and are refused too;
 * inside them the file is read as WGS84 and a warning says so.
 */
export const shapefileReader: LayerReader = {
  format: 'shapefile',
  licence: null,
  async *read(file: string, opts: ReadOptions): AsyncGenerator<LayerFeature> {
    const dbf = sidecar(file, 'dbf');
    if (!dbf) throw new LayerFileError(file, 'Shapefile without its .dbf (attribute table); copy the .dbf next to the .shp');
    const prj = sidecar(file, 'prj');
    if (prj) {
      const v = judgeWkt(await readFile(prj, 'utf8'));
      if (!v.ok) throw new LayerFileError(file, `${v.reason} in ${basename(prj)}; ${REPROJECT_HINT}`);
    }
    // Text encoding: the .cpg if there is one, else the .dbf's language driver byte, else UTF-8.
    const header = await dbfHeader(dbf);
    const cpg = sidecar(file, 'cpg');
    const encoding = (cpg && existsSync(cpg) ? (await readFile(cpg, 'utf8')).trim() : '') || header.encoding || 'utf-8';
    let source: shapefile.Source;
    try {
      source = await shapefile.open(file, dbf, { encoding });
    } catch (e) {
      throw new LayerFileError(file, `not a readable Shapefile (${e instanceof Error ? e.message : String(e)})`);
    }
    if (!prj) {
      if (outsideLonLat(source.bbox)) {
        throw new LayerFileError(file, `no .prj and coordinates (${source.bbox.map((n) => n.toFixed(0)).join(', ')}) are not longitude/latitude: a projected CRS without its .prj; ${REPROJECT_HINT}`);
      }
      opts.warn?.(`${basename(file)} has no .prj; read as WGS84 longitude/latitude`);
    }
    const total = header.records;
    let n = 0;
    let empty = 0;
    try {
      for (;;) {
        let r;
        try {
          r = await source.read();
        } catch (e) {
          throw new LayerFileError(file, `damaged Shapefile at record ${n + 1} (${e instanceof Error ? e.message : String(e)})`);
        }
        if (r.done) break;
        n++;
        if ((n & 1023) === 0) {
          throwIfAborted(opts.signal, file);
          opts.onProgress?.({ done: n, total, unit: 'items' });
        }
        if (!r.value.geometry) {
          empty++;
          continue;
        }
        yield { sourceId: String(n), geometry: r.value.geometry, properties: unpackOtherTags((r.value.properties ?? {}) as Record<string, unknown>) };
      }
    } finally {
      await source.cancel().catch(() => {});
    }
    opts.onProgress?.({ done: n, total, unit: 'items' });
    if (empty) opts.warn?.(`${empty} record(s) with a null shape not imported`);
  },
};
