/** Reads `length` bytes at `pos` (fewer at the end of the file). */
export type ReadAt = (pos: number, length: number) => Promise<Buffer>;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PixelSize {
  width: number;
  height: number;
}

/**
 * Image size of a JPEG from its SOF marker, walking the segments before it: exifr reads metadata
 * segments only, and the EXIF pixel dimensions are optional and often stale after edits.
 */
export async function jpegSize(read: ReadAt): Promise<PixelSize | null> {
  const frame = await jpegFrame(read);
  return typeof frame === 'object' ? frame : null;
}

/** The frame size, or 'ends-early' when the file ends before the frame header (a truncated file), else null. */
export async function jpegFrame(read: ReadAt): Promise<PixelSize | 'ends-early' | null> {
  let pos = 2;
  for (let guard = 0; guard < 64; guard++) {
    const head = await read(pos, 9);
    if (head.length < 4) return 'ends-early';
    if (head[0] !== 0xff) return null;
    const marker = head[1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (head.length < 9) return 'ends-early';
      return { height: head.readUInt16BE(5), width: head.readUInt16BE(7) };
    }
    pos += 2 + head.readUInt16BE(2);
  }
  return null;
}

/** How each photo type's files begin, to tell a photo from a file merely named like one. */
export function looksLike(mime: string, head: Buffer): boolean {
  switch (mime) {
    case 'image/jpeg':
      return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case 'image/png':
      return head.subarray(0, 8).equals(PNG_SIGNATURE);
    case 'image/tiff':
      return ['49492a00', '4d4d002a', '49492b00', '4d4d002b'].includes(head.toString('hex', 0, 4));
    case 'image/heic':
    case 'image/heif':
      return head.toString('latin1', 4, 8) === 'ftyp';
    default:
      return true;
  }
}

/** Image size of a PNG from its IHDR chunk (always the first). */
export function pngSize(head: Buffer): PixelSize | null {
  if (head.length < 24 || !head.subarray(0, 8).equals(PNG_SIGNATURE) || head.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** A buffer as a ReadAt. */
export const readBuffer =
  (bytes: Buffer): ReadAt =>
  async (pos, length) =>
    bytes.subarray(pos, pos + length);
