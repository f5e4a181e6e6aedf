import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import exifr from 'exifr';
import { jpegFrame, looksLike, type PixelSize } from './image-size';

/** File types the catalog reads (exifr parses their EXIF/XMP); anything else in a folder is ignored. */
export const PHOTO_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.png': 'image/png',
  '.heic': 'image/heic',
  '.heif': 'image/heif',
};

export function photoMime(path: string): string | undefined {
  return PHOTO_TYPES[extname(path).toLowerCase()];
}

export interface PhotoMeta {
  lon: number;
  lat: number;
  direction: number | null;
  /** Capture time as the camera recorded it: "YYYY-MM-DDTHH:MM:SS", plus the offset when recorded. */
  takenAt: string | null;
  year: number | null;
  month: number | null;
  day: number | null;
  description: string | null;
  keywords: string[];
  make: string | null;
  artist: string | null;
  width: number | null;
  height: number | null;
  interactive: boolean;
}

export type ReadResult = { ok: true; meta: PhotoMeta } | { ok: false; reason: string };

const EXIF_DATE = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;

function text(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  // Cameras pad ASCII fields with NULs and spaces.
  const s = v.replace(/\0+$/, '').trim();
  return s.length ? s : null;
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(list);
  const s = text(v);
  return s ? s.split(/\s*[;,]\s*/).filter(Boolean) : [];
}

/** The kind of photo in words, for reasons. */
const kindOf = (mime: string) => mime.replace(/^image\//, '').toUpperCase();

/** Why a GPS position cannot be used, in words, or null when it can. */
function positionProblem(raw: Record<string, unknown>): string | null {
  const lat = raw['latitude'];
  const lon = raw['longitude'];
  const tagged = raw['GPSLatitude'] !== undefined || raw['GPSLongitude'] !== undefined;
  if (typeof lat !== 'number' || typeof lon !== 'number')
    return tagged ? 'invalid GPS position: latitude or longitude is missing or not numbers' : 'no GPS position in EXIF';
  const bad: string[] = [];
  if (!Number.isFinite(lat)) bad.push('latitude is not a number (a zero denominator in its degrees, minutes or seconds)');
  else if (Math.abs(lat) > 90) bad.push(`latitude ${lat} is outside -90 to 90`);
  if (!Number.isFinite(lon)) bad.push('longitude is not a number (a zero denominator in its degrees, minutes or seconds)');
  else if (Math.abs(lon) > 180) bad.push(`longitude ${lon} is outside -180 to 180`);
  if (bad.length) return `invalid GPS position: ${bad.join('; ')}`;
  if (lat === 0 && lon === 0) return 'GPS position is 0,0 (a placeholder)';
  return null;
}

/** Reads the start and size of a photo (one handle, closed here) to say what is wrong before its metadata is parsed. */
async function inspect(path: string, mime: string): Promise<{ problem: string | null; frame: PixelSize | null }> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size === 0) return { problem: 'empty file (0 bytes)', frame: null };
    const read = async (pos: number, length: number) => {
      const b = Buffer.alloc(length);
      const { bytesRead } = await fh.read(b, 0, length, pos);
      return b.subarray(0, bytesRead);
    };
    const head = await read(0, 16);
    if (!looksLike(mime, head)) return { problem: `not a ${kindOf(mime)} image: the file does not begin as one`, frame: null };
    if (mime !== 'image/jpeg') return { problem: null, frame: null };
    const frame = await jpegFrame(read);
    if (frame === 'ends-early') return { problem: `truncated ${kindOf(mime)}: the file (${size} bytes) ends before its image data`, frame: null };
    return { problem: null, frame };
  } finally {
    await fh.close();
  }
}

/** A capture time text ("2024:03:05 10:00:00", ISO with optional offset) in the catalog's form. */
export function parseCaptureTime(
  source: string | null,
  offsetText: string | null = null,
): Pick<PhotoMeta, 'takenAt' | 'year' | 'month' | 'day'> {
  const m = source ? EXIF_DATE.exec(source) : null;
  const none = { takenAt: null, year: null, month: null, day: null };
  if (!m) return none;
  const [, y, mo, d, h, mi, s] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // "0000:00:00 00:00:00" is how cameras without a clock write "unknown".
  if (!year || month < 1 || month > 12 || day < 1 || day > 31) return none;
  const rest = source!.slice(m[0].length).replace(/^\.\d+/, '');
  const offset = offsetText ?? (rest.length ? rest : null);
  const zone = offset === 'Z' || (offset && /^[+-]\d{2}:\d{2}$/.test(offset)) ? offset : '';
  return { takenAt: `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`, year, month, day };
}

function captureTime(raw: Record<string, unknown>): Pick<PhotoMeta, 'takenAt' | 'year' | 'month' | 'day'> {
  const source = text(raw['DateTimeOriginal']) ?? text(raw['CreateDate']) ?? text(raw['DateTimeDigitized']);
  return parseCaptureTime(source, text(raw['OffsetTimeOriginal']));
}

/** Read what the catalog keeps of one photo, or why it cannot be placed on the map (in words). */
export async function readPhoto(path: string): Promise<ReadResult> {
  const mime = photoMime(path) ?? '';
  let frame: PixelSize | null;
  try {
    const seen = await inspect(path, mime);
    if (seen.problem) return { ok: false, reason: seen.problem };
    frame = seen.frame;
  } catch (err) {
    return { ok: false, reason: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  }
  let raw: Record<string, unknown> | undefined;
  try {
    raw = (await exifr.parse(path, {
      tiff: true,
      ifd1: false,
      exif: true,
      gps: true,
      xmp: true,
      iptc: true,
      icc: false,
      reviveValues: false,
      translateValues: false,
    })) as Record<string, unknown> | undefined;
  } catch (err) {
    return { ok: false, reason: `damaged ${kindOf(mime)}: its metadata could not be read (${(err as Error).message})` };
  }
  if (!raw) return { ok: false, reason: 'no EXIF metadata' };
  const problem = positionProblem(raw);
  const errors = raw['errors'];
  if (problem && Array.isArray(errors) && errors.length)
    return { ok: false, reason: `damaged ${kindOf(mime)} metadata (${(errors[0] as Error).message}), and ${problem}` };
  if (problem) return { ok: false, reason: problem };
  const lat = raw['latitude'] as number;
  const lon = raw['longitude'] as number;

  const dirRaw = raw['GPSImgDirection'];
  const direction = typeof dirRaw === 'number' && Number.isFinite(dirRaw) ? ((dirRaw % 360) + 360) % 360 : null;

  let size: PixelSize | null = frame;
  if (!size) {
    const w = raw['ExifImageWidth'] ?? raw['ImageWidth'];
    const h = raw['ExifImageHeight'] ?? raw['ImageHeight'];
    if (typeof w === 'number' && typeof h === 'number') size = { width: w, height: h };
  }
  const projection = text(raw['ProjectionType'])?.toLowerCase();
  const twoToOne = !!size && size.height > 0 && Math.abs(size.width / size.height - 2) < 0.01;

  const keywords = [...new Set([...list(raw['subject']), ...list(raw['Keywords'])])];
  return {
    ok: true,
    meta: {
      lon,
      lat,
      direction,
      ...captureTime(raw),
      description: text(raw['ImageDescription']) ?? text(raw['description']) ?? text(raw['Caption']),
      keywords,
      make: text(raw['Make']),
      artist: text(raw['Artist']) ?? text(raw['creator']),
      width: size?.width ?? null,
      height: size?.height ?? null,
      interactive: projection === 'equirectangular' || twoToOne,
    },
  };
}
