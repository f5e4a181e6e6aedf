import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import piexif from 'piexifjs';
import { afterAll, describe, expect, it } from 'vitest';
import { readPhoto } from '../../../electron/local-service/imagery/exif';
import { writeGeotaggedJpeg } from '../../../electron/local-service/imagery/photo-writer';

const dir = mkdtempSync(join(tmpdir(), 'fl-exif-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readPhoto', () => {
  it('reads position, direction, date, description, keywords, make and size', async () => {
    const p = join(dir, 'a.jpg');
    writeGeotaggedJpeg(p, {
      width: 40, height: 30, latitude: -33.8568, longitude: 151.2153, direction: 67.5, takenAt: '2022:12:31 21:00:05',
      description: 'Harbour front', keywords: ['harbour', 'ferry'], make: 'Cam', artist: 'A. Person',
    });
    const r = await readPhoto(p);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.meta.lat).toBeCloseTo(-33.8568, 5);
    expect(r.meta.lon).toBeCloseTo(151.2153, 5);
    expect(r.meta.direction).toBe(67.5);
    expect(r.meta.takenAt).toBe('2022-12-31T21:00:05');
    expect([r.meta.year, r.meta.month, r.meta.day]).toEqual([2022, 12, 31]);
    expect(r.meta.description).toBe('Harbour front');
    expect(r.meta.keywords).toEqual(['harbour', 'ferry']);
    expect(r.meta.make).toBe('Cam');
    expect(r.meta.artist).toBe('A. Person');
    expect([r.meta.width, r.meta.height]).toEqual([40, 30]);
    expect(r.meta.interactive).toBe(false);
  });

  it('marks 2:1 images and XMP equirectangular projections as interactive', async () => {
    const wide = join(dir, 'wide.jpg');
    writeGeotaggedJpeg(wide, { width: 64, height: 32, latitude: 1, longitude: 1 });
    const tagged = join(dir, 'tagged.jpg');
    writeGeotaggedJpeg(tagged, { width: 60, height: 40, latitude: 1, longitude: 1, projection: 'equirectangular' });
    const plain = join(dir, 'plain.jpg');
    writeGeotaggedJpeg(plain, { width: 60, height: 40, latitude: 1, longitude: 1 });
    const res = await Promise.all([wide, tagged, plain].map(readPhoto));
    expect(res.map((r) => r.ok && r.meta.interactive)).toEqual([true, true, false]);
  });

  it('gives the reason a photo cannot be placed', async () => {
    const noGps = join(dir, 'nogps.jpg');
    writeGeotaggedJpeg(noGps, { width: 8, height: 8, takenAt: '2020:01:01 00:00:00' });
    expect(await readPhoto(noGps)).toEqual({ ok: false, reason: 'no GPS position in EXIF' });
    const zero = join(dir, 'zero.jpg');
    writeGeotaggedJpeg(zero, { width: 8, height: 8, latitude: 0, longitude: 0 });
    expect(await readPhoto(zero)).toEqual({ ok: false, reason: 'GPS position is 0,0 (a placeholder)' });
    const junk = join(dir, 'junk.jpg');
    writeFileSync(junk, 'not a jpeg at all');
    expect(await readPhoto(junk)).toEqual({ ok: false, reason: 'not a JPEG image: the file does not begin as one' });
  });

  it('says in words what is wrong with a damaged file', async () => {
    const empty = join(dir, 'empty.jpg');
    writeFileSync(empty, '');
    expect(await readPhoto(empty)).toEqual({ ok: false, reason: 'empty file (0 bytes)' });
    const png = join(dir, 'text.png');
    writeFileSync(png, 'hello');
    expect(await readPhoto(png)).toEqual({ ok: false, reason: 'not a PNG image: the file does not begin as one' });
    const whole = join(dir, 'whole.jpg');
    writeGeotaggedJpeg(whole, { width: 16, height: 16, latitude: 10, longitude: 10 });
    const bytes = readFileSync(whole);
    // Cut inside the EXIF segment, and after the metadata but before the frame header.
    const app1End = 4 + bytes.readUInt16BE(4);
    for (const [name, at] of [['cut-exif.jpg', 30], ['cut-image.jpg', app1End + 2]] as const) {
      writeFileSync(join(dir, name), bytes.subarray(0, at));
      const r = await readPhoto(join(dir, name));
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(/^(truncated JPEG: the file \(\d+ bytes\) ends before its image data|damaged JPEG)/);
      expect(!r.ok && r.reason).not.toMatch(/Cannot read properties|getUint/);
    }
  });

  it('says why a GPS position is invalid', async () => {
    const far = join(dir, 'far.jpg');
    writeGeotaggedJpeg(far, { width: 8, height: 8, latitude: 123, longitude: 10 });
    expect(await readPhoto(far)).toEqual({ ok: false, reason: 'invalid GPS position: latitude 123 is outside -90 to 90' });
    // Degrees as 0/0: the latitude computes to NaN.
    const plain = join(dir, 'plain-nan.jpg');
    writeGeotaggedJpeg(plain, { width: 8, height: 8 });
    const gps: Record<number, string | [number, number][]> = {
      [piexif.GPSIFD['GPSLatitudeRef']!]: 'N',
      [piexif.GPSIFD['GPSLatitude']!]: [[0, 0], [0, 0], [0, 0]],
      [piexif.GPSIFD['GPSLongitudeRef']!]: 'E',
      [piexif.GPSIFD['GPSLongitude']!]: [[10, 1], [0, 1], [0, 1]],
    };
    const nan = join(dir, 'nan.jpg');
    writeFileSync(nan, Buffer.from(piexif.insert(piexif.dump({ GPS: gps }), readFileSync(plain).toString('latin1')), 'latin1'));
    const r = await readPhoto(nan);
    expect(!r.ok && r.reason).toMatch(/^invalid GPS position: latitude is not a number/);
  });

  it('keeps an undated photo with a null date', async () => {
    const p = join(dir, 'undated.jpg');
    writeGeotaggedJpeg(p, { width: 8, height: 8, latitude: 10, longitude: 10 });
    const r = await readPhoto(p);
    expect(r.ok && [r.meta.takenAt, r.meta.year, r.meta.direction]).toEqual([null, null, null]);
  });
});
