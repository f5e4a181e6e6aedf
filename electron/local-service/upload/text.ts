import { UploadError } from './types';

/** Longest quoted excerpt of a file's content in an error or warning. */
export const EXCERPT = 40;
/**
 * Longest text value of an attribute in the results; longer ones are cut (and reported). Large
 * enough that real data (a 10 kB description or name) arrives whole for the details view, small
 * enough that a runaway cell cannot swell a response by megabytes.
 */
export const MAX_TEXT = 16_384;
/** Longest name, address or id in the results (the workspace shortens them for lists). */
export const MAX_LABEL = 16_384;

/** A short, printable excerpt: control characters become "?", long text ends with "…". */
export function excerpt(s: string, max = EXCERPT): string {
  // eslint-disable-next-line no-control-regex
  const clean = s.slice(0, max + 1).replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
  return clean.length > max ? clean.slice(0, max) + '…' : clean;
}

/**
 * A file name as it may appear in messages and results: control characters (NUL, line breaks,
 * escapes that would drive a terminal) become "?".
 */
export function printableName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** Cuts a text to `max` characters (ending with "…"); null when it fits. */
export function cut(s: string, max: number): string | null {
  return s.length > max ? s.slice(0, max - 1) + '…' : null;
}

// Leading bytes of binary formats people send by mistake, to say what the file seems to be.
const SIGNATURES: [number[], string][] = [
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (XLSX, KMZ or a zipped shapefile?)'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 'an SQLite database (GeoPackage?)'],
  [[0x1f, 0x8b], 'a gzip archive'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'an old Office document (XLS?)'],
];

export interface Decoded {
  text: string;
  /** The encoding when it was not plain UTF-8, for the `encoding` warning. */
  encoding: string | null;
  how: string;
}

function utf16Guess(bytes: Buffer): 'utf-16le' | 'utf-16be' | null {
  // Mostly-ASCII text in UTF-16 has a zero byte in every pair, on one side.
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 16) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  const guess = oddZero > pairs * 0.3 && evenZero < pairs * 0.05 ? 'utf-16le' : evenZero > pairs * 0.3 && oddZero < pairs * 0.05 ? 'utf-16be' : null;
  // Text decodes without control characters or replacement marks; binary data rarely does.
  // eslint-disable-next-line no-control-regex
  return guess && !/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(new TextDecoder(guess).decode(bytes.subarray(0, n))) ? guess : null;
}

function binaryKind(bytes: Buffer): string | null {
  for (const [sig, what] of SIGNATURES) if (sig.every((b, i) => bytes[i] === b)) return what;
  const n = Math.min(bytes.length, 4096);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return 'binary data';
    if (b < 0x09 || (b > 0x0d && b < 0x20)) control++;
  }
  return n && control > n * 0.1 ? 'binary data' : null;
}

/**
 * Text of an uploaded file: UTF-8 (with or without BOM), UTF-16 (BOM or zero-byte pattern) or,
 * when the bytes are not valid UTF-8, Windows-1252 (the usual Latin-1 of spreadsheet exports).
 * Binary files are refused without quoting their bytes.
 */
export function decodeUpload(file: string, bytes: Buffer): Decoded {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: null, how: 'byte order mark' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'UTF-16LE', how: 'byte order mark' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'UTF-16BE', how: 'byte order mark' };
  const binary = binaryKind(bytes);
  const wide = binary === 'binary data' ? utf16Guess(bytes) : null;
  if (wide) return { text: new TextDecoder(wide).decode(bytes), encoding: wide.toUpperCase(), how: 'no byte order mark' };
  if (binary) throw new UploadError(file, null, `not a text file: it looks like ${binary}; send CSV or GeoJSON text`, 'binary');
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: null, how: '' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'Windows-1252 (Latin-1)', how: 'not valid UTF-8' };
  }
}
