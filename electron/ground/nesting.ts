/**
 * Nesting limits for untrusted documents. JSON.parse takes any depth, but JSON.stringify, the
 * structured clone of IPC and every recursive walker overflow the stack somewhere past a few
 * thousand levels; real geodata needs fewer than twenty.
 */
export const MAX_NESTING = 100;

/**
 * Reads the shape of a JSON text without parsing it, a range at a time (so a caller can pause
 * between ranges): how deep arrays and objects nest, and how many positions (arrays that start
 * with a number, as GeoJSON coordinates do) each member of a top-level array of objects holds,
 * such as each feature of a FeatureCollection. No recursion; strings are skipped.
 */
export class JsonShape {
  /** Set once the text nests deeper than the limit; scanning stops there. */
  tooDeep = false;
  /**
   * The first member with more positions than `maxPositions` (0-based, and the offset where it
   * starts); -2 when the positions outside any member (a lone Feature or geometry) are too many;
   * -1 when none.
   */
  bigMember = -1;
  bigMemberAt = -1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private afterOpen = false;
  /** 1 where the container at that depth is an array. */
  private readonly arrays: Uint8Array;
  private member = -1;
  private memberAt = -1;
  private inMember = false;
  private positions = 0;
  private outside = 0;

  constructor(
    private readonly limit = MAX_NESTING,
    private readonly maxPositions = Infinity,
  ) {
    this.arrays = new Uint8Array(limit + 2);
  }

  /** Scans text[from, to); returns false once the answer is known (too deep, or a member too large). */
  feed(text: string, from: number, to: number): boolean {
    if (this.tooDeep || this.bigMember !== -1) return false;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (this.afterOpen) {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        this.afterOpen = false;
        if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
          if (this.inMember ? ++this.positions > this.maxPositions : ++this.outside > this.maxPositions) {
            this.bigMember = this.inMember ? this.member : -2;
            this.bigMemberAt = this.inMember ? this.memberAt : 0;
            return false;
          }
        }
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++this.depth > this.limit) {
          this.tooDeep = true;
          return false;
        }
        const array = c === 0x5b;
        this.arrays[this.depth] = array ? 1 : 0;
        if (array) this.afterOpen = true;
        else if (this.depth === 3 && this.arrays[2] === 1 && this.arrays[1] === 0) {
          this.member++;
          this.memberAt = i;
          this.inMember = true;
          this.positions = 0;
        }
      } else if (c === 0x5d || c === 0x7d) {
        if (this.depth === 3 && c === 0x7d) this.inMember = false;
        this.depth--;
      }
    }
    return true;
  }
}

/** Whether a JSON text nests arrays and objects deeper than `limit`; see JsonShape. */
export function jsonTooDeep(text: string, limit = MAX_NESTING): boolean {
  const shape = new JsonShape(limit);
  shape.feed(text, 0, text.length);
  return shape.tooDeep;
}

/** Whether a value nests arrays and objects deeper than `limit`; iterative, stops at the first level too deep. */
export function valueTooDeep(value: unknown, limit = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d >= limit) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (v[i] !== null && typeof v[i] === 'object') stack.push([v[i], d + 1]);
    } else if (!ArrayBuffer.isView(v)) for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
    }
  }
  return false;
}

/**
 * Whether an XML text nests elements deeper than `limit`: a linear scan of its tags (comments,
 * CDATA, declarations and self-closing tags do not nest), run before a DOM is built.
 */
export function xmlTooDeep(text: string, limit = MAX_NESTING): boolean {
  let depth = 0;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    const next = text[i + 1];
    if (next === '/') depth--;
    else if (next === '!' || next === '?') {
      const end = text.startsWith('<!--', i) ? '-->' : text.startsWith('<![CDATA[', i) ? ']]>' : '>';
      const at = text.indexOf(end, i);
      if (at === -1) return false;
      i = at;
    } else {
      const close = text.indexOf('>', i);
      if (close === -1) return false;
      if (text[close - 1] !== '/' && ++depth > limit) return true;
      i = close;
    }
  }
  return false;
}
