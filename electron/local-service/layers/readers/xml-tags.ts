/**
 * A small streaming scanner of XML start/end tags with attributes, enough for OSM XML (flat
 * elements, attributes only, no text content that matters). @xmldom builds the whole document
 * in memory, which a large .osm file cannot afford; this keeps one chunk and one tag at a time.
 */

export interface XmlTag {
  name: string;
  attrs: Record<string, string>;
  /** true for `</name>` */
  close: boolean;
  /** true for `<name ... />` */
  selfClosing: boolean;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITY[e] ?? m;
  });
}

const ATTR = /([\w:.-]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

export class XmlSyntaxError extends Error {}

const MAX_TAG_CHARS = 1 << 20;

export class XmlTagScanner {
  private rest = '';

  /** Tags complete in `text` (plus what was left from the last chunk). */
  *push(text: string): Generator<XmlTag> {
    const s = this.rest + text;
    let i = 0;
    for (;;) {
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        i = s.length;
        break;
      }
      if (s.startsWith('<!--', lt)) {
        const end = s.indexOf('-->', lt + 4);
        if (end < 0) {
          i = lt;
          break;
        }
        i = end + 3;
        continue;
      }
      if (s.startsWith('<![CDATA[', lt)) {
        const end = s.indexOf(']]>', lt);
        if (end < 0) {
          i = lt;
          break;
        }
        i = end + 3;
        continue;
      }
      const gt = findTagEnd(s, lt + 1);
      if (gt < 0) {
        i = lt;
        break;
      }
      i = gt + 1;
      const c = s[lt + 1];
      if (c === '?' || c === '!') continue;
      const close = c === '/';
      const body = s.slice(close ? lt + 2 : lt + 1, s[gt - 1] === '/' ? gt - 1 : gt);
      const m = /^[\w:.-]+/.exec(body);
      if (!m) throw new XmlSyntaxError(`malformed tag "${s.slice(lt, Math.min(gt + 1, lt + 60))}"`);
      const attrs: Record<string, string> = {};
      if (!close) {
        ATTR.lastIndex = m[0].length;
        let a: RegExpExecArray | null;
        while ((a = ATTR.exec(body))) attrs[a[1]!] = decodeEntities(a[3] ?? a[4] ?? '');
      }
      yield { name: m[0], attrs, close, selfClosing: s[gt - 1] === '/' };
    }
    this.rest = s.slice(i);
    // No OSM element is anywhere near this long: the input is not XML (or a tag never closes).
    if (this.rest.length > MAX_TAG_CHARS) throw new XmlSyntaxError(`a tag runs over ${MAX_TAG_CHARS} characters without closing`);
  }

  /** Throws when the input stopped inside a tag. */
  end(): void {
    if (this.rest.trim().length) throw new XmlSyntaxError('file ends inside a tag');
  }
}

/** The `>` ending a tag, skipping any inside quoted attribute values. */
function findTagEnd(s: string, from: number): number {
  let q = '';
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = '';
    } else if (c === '"' || c === "'") q = c;
    else if (c === '>') return i;
  }
  return -1;
}
