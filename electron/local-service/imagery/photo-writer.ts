import { writeFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import piexif from 'piexifjs';

/** What a drawn, geotagged JPEG carries: the metadata the imagery catalog reads back. */
export interface PhotoSpec {
  width: number;
  height: number;
  latitude?: number;
  longitude?: number;
  /** GPSImgDirection, degrees clockwise from north. */
  direction?: number;
  /** DateTimeOriginal as EXIF writes it: "YYYY:MM:DD HH:MM:SS". */
  takenAt?: string;
  description?: string;
  make?: string;
  artist?: string;
  /** Written as XMP dc:subject. */
  keywords?: string[];
  /** Written as XMP GPano:ProjectionType. */
  projection?: 'equirectangular';
  /** Picks the drawing's colours and shapes. */
  seed?: number;
  quality?: number;
  /** Text drawn in the top-left corner (A-Z, 0-9, space; "\n" starts a line). */
  label?: string;
}

// 5x7 bitmap glyphs, one row per string, so sample images can say what they are without a font file.
const GLYPHS: Record<string, string[]> = {
  A: ['01110', '10001', '10001', '11111', '10001', '10001', '10001'],
  B: ['11110', '10001', '10001', '11110', '10001', '10001', '11110'],
  C: ['01110', '10001', '10000', '10000', '10000', '10001', '01110'],
  D: ['11110', '10001', '10001', '10001', '10001', '10001', '11110'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  F: ['11111', '10000', '10000', '11110', '10000', '10000', '10000'],
  G: ['01110', '10001', '10000', '10111', '10001', '10001', '01111'],
  H: ['10001', '10001', '10001', '11111', '10001', '10001', '10001'],
  I: ['01110', '00100', '00100', '00100', '00100', '00100', '01110'],
  J: ['00111', '00010', '00010', '00010', '00010', '10010', '01100'],
  K: ['10001', '10010', '10100', '11000', '10100', '10010', '10001'],
  L: ['10000', '10000', '10000', '10000', '10000', '10000', '11111'],
  M: ['10001', '11011', '10101', '10101', '10001', '10001', '10001'],
  N: ['10001', '10001', '11001', '10101', '10011', '10001', '10001'],
  O: ['01110', '10001', '10001', '10001', '10001', '10001', '01110'],
  P: ['11110', '10001', '10001', '11110', '10000', '10000', '10000'],
  Q: ['01110', '10001', '10001', '10001', '10101', '10010', '01101'],
  R: ['11110', '10001', '10001', '11110', '10100', '10010', '10001'],
  S: ['01111', '10000', '10000', '01110', '00001', '00001', '11110'],
  T: ['11111', '00100', '00100', '00100', '00100', '00100', '00100'],
  U: ['10001', '10001', '10001', '10001', '10001', '10001', '01110'],
  V: ['10001', '10001', '10001', '10001', '10001', '01010', '00100'],
  W: ['10001', '10001', '10001', '10101', '10101', '10101', '01010'],
  X: ['10001', '10001', '01010', '00100', '01010', '10001', '10001'],
  Y: ['10001', '10001', '01010', '00100', '00100', '00100', '00100'],
  Z: ['11111', '00001', '00010', '00100', '01000', '10000', '11111'],
  '0': ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
  '1': ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
  '2': ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
  '3': ['11110', '00001', '00001', '01110', '00001', '00001', '11110'],
  '4': ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
  '5': ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
  '6': ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
  '7': ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
  '8': ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
  '9': ['01110', '10001', '10001', '01111', '00001', '00010', '01100'],
};

/** Small deterministic PRNG (mulberry32): the same seed draws the same picture. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A street-like scene: sky gradient, ground, a row of buildings with windows, an optional label. */
export function drawScene(width: number, height: number, seed = 1, label?: string): Buffer {
  const rand = rng(seed);
  const px = Buffer.alloc(width * height * 4);
  const set = (x: number, y: number, r: number, g: number, b: number) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = (y * width + x) * 4;
    px[i] = r;
    px[i + 1] = g;
    px[i + 2] = b;
    px[i + 3] = 255;
  };
  const horizon = Math.round(height * (0.55 + rand() * 0.15));
  const skyHue = rand();
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (y < horizon) {
        const t = y / horizon;
        set(x, y, Math.round(90 + 80 * t + 40 * skyHue), Math.round(150 + 70 * t), 235);
      } else {
        const t = (y - horizon) / Math.max(1, height - horizon);
        const road = Math.abs(x - width / 2) < (width * 0.1 + t * width * 0.3);
        const g = road ? 90 + 30 * t : 110 + 40 * t;
        set(x, y, road ? g : 70, road ? g : g, road ? g : 60);
      }
    }
  }
  let x = 0;
  while (x < width) {
    const w = Math.max(4, Math.round(width * (0.06 + rand() * 0.12)));
    const h = Math.round(horizon * (0.25 + rand() * 0.6));
    const [r, g, b] = [Math.round(rand() * 150 + 60), Math.round(rand() * 120 + 60), Math.round(rand() * 120 + 50)];
    for (let yy = horizon - h; yy < horizon; yy++) {
      for (let xx = x; xx < Math.min(width, x + w - 1); xx++) {
        const win = w > 10 && (xx - x) % 6 >= 2 && (xx - x) % 6 <= 3 && (yy - (horizon - h)) % 8 >= 3 && (yy - (horizon - h)) % 8 <= 5;
        if (win) set(xx, yy, 240, 230, 150);
        else set(xx, yy, r, g, b);
      }
    }
    x += w;
  }
  // One box per line of the label ("\n" separates lines).
  (label ?? '').split('\n').filter(Boolean).forEach((line, li) => {
    const scale = Math.max(1, Math.floor(Math.min(width, height) / 120));
    const top = 2 * scale + li * 10 * scale;
    const chars = line.toUpperCase().split('');
    const boxW = chars.length * 6 * scale + 2 * scale;
    for (let yy = 0; yy < 9 * scale; yy++) for (let xx = 0; xx < boxW; xx++) set(xx + 2 * scale, yy + top, 20, 20, 20);
    chars.forEach((ch, ci) => {
      const glyph = GLYPHS[ch];
      if (!glyph) return;
      glyph.forEach((row, gy) => {
        for (let gx = 0; gx < 5; gx++) {
          if (row[gx] !== '1') continue;
          for (let sy = 0; sy < scale; sy++)
            for (let sx = 0; sx < scale; sx++)
              set(3 * scale + (ci * 6 + gx) * scale + sx, top + scale + gy * scale + sy, 255, 255, 255);
        }
      });
    });
  });
  return px;
}

/** Degrees as EXIF GPS rationals: degrees, minutes, seconds (1/1000 s). */
function dms(value: number): [number, number][] {
  const abs = Math.abs(value);
  const d = Math.floor(abs);
  const mFloat = (abs - d) * 60;
  const m = Math.floor(mFloat);
  const s = Math.round((mFloat - m) * 60 * 1000);
  return [
    [d, 1],
    [m, 1],
    [s, 1000],
  ];
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An XMP packet with dc:subject keywords and the GPano projection type. */
function xmpPacket(spec: Pick<PhotoSpec, 'keywords' | 'projection'>): string | null {
  if (!spec.keywords?.length && !spec.projection) return null;
  const subject = spec.keywords?.length
    ? `<dc:subject><rdf:Bag>${spec.keywords.map((k) => `<rdf:li>${xmlEscape(k)}</rdf:li>`).join('')}</rdf:Bag></dc:subject>`
    : '';
  const pano = spec.projection ? ` GPano:ProjectionType="${spec.projection}" GPano:UsePanoramaViewer="True"` : '';
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:GPano="http://ns.google.com/photos/1.0/panorama/"${pano}>` +
    subject +
    '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
  );
}

/**
 * piexifjs writes EXIF only; XMP goes in its own APP1 segment, inserted here right after the
 * EXIF APP1 (or after SOI) as the XMP specification lays it out.
 */
function insertXmp(jpegBytes: Buffer, xmp: string): Buffer {
  const header = Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1');
  const body = Buffer.concat([header, Buffer.from(xmp, 'utf8')]);
  const seg = Buffer.alloc(4);
  seg[0] = 0xff;
  seg[1] = 0xe1;
  seg.writeUInt16BE(body.length + 2, 2);
  let at = 2;
  if (jpegBytes[2] === 0xff && jpegBytes[3] === 0xe1) at = 4 + jpegBytes.readUInt16BE(4);
  return Buffer.concat([jpegBytes.subarray(0, at), seg, body, jpegBytes.subarray(at)]);
}

/** Encode a drawn scene as JPEG (no metadata yet). */
export function drawJpeg(width: number, height: number, seed = 1, label?: string, quality = 70): Buffer {
  return jpeg.encode({ data: drawScene(width, height, seed, label), width, height }, quality).data;
}

/** Write real EXIF (GPS, direction, date, description, make) and optional XMP into JPEG bytes. */
export function tagJpeg(encoded: Buffer, spec: Omit<PhotoSpec, 'seed' | 'quality' | 'label'>): Buffer {
  const zeroth: Record<number, string | number> = {};
  const exif: Record<number, string | number> = {};
  const gps: Record<number, string | number | number[] | [number, number] | [number, number][]> = {};
  if (spec.description) zeroth[piexif.ImageIFD['ImageDescription']!] = spec.description;
  if (spec.make) zeroth[piexif.ImageIFD['Make']!] = spec.make;
  if (spec.artist) zeroth[piexif.ImageIFD['Artist']!] = spec.artist;
  exif[piexif.ExifIFD['PixelXDimension']!] = spec.width;
  exif[piexif.ExifIFD['PixelYDimension']!] = spec.height;
  if (spec.takenAt) exif[piexif.ExifIFD['DateTimeOriginal']!] = spec.takenAt;
  if (spec.latitude !== undefined && spec.longitude !== undefined) {
    gps[piexif.GPSIFD['GPSVersionID']!] = [2, 3, 0, 0];
    gps[piexif.GPSIFD['GPSLatitudeRef']!] = spec.latitude >= 0 ? 'N' : 'S';
    gps[piexif.GPSIFD['GPSLatitude']!] = dms(spec.latitude);
    gps[piexif.GPSIFD['GPSLongitudeRef']!] = spec.longitude >= 0 ? 'E' : 'W';
    gps[piexif.GPSIFD['GPSLongitude']!] = dms(spec.longitude);
  }
  if (spec.direction !== undefined) {
    gps[piexif.GPSIFD['GPSImgDirectionRef']!] = 'T';
    gps[piexif.GPSIFD['GPSImgDirection']!] = [Math.round(spec.direction * 100), 100];
  }
  const exifBytes = piexif.dump({ '0th': zeroth, Exif: exif, GPS: gps });
  let out: Buffer = Buffer.from(piexif.insert(exifBytes, encoded.toString('latin1')), 'latin1');
  const xmp = xmpPacket(spec);
  if (xmp) out = insertXmp(out, xmp);
  return out;
}

/** A drawn JPEG with real EXIF (GPS, direction, date, description, make) and optional XMP. */
export function makeGeotaggedJpeg(spec: PhotoSpec): Buffer {
  return tagJpeg(drawJpeg(spec.width, spec.height, spec.seed ?? 1, spec.label, spec.quality ?? 70), spec);
}

export function writeGeotaggedJpeg(path: string, spec: PhotoSpec): void {
  writeFileSync(path, makeGeotaggedJpeg(spec));
}
