/**
 * Nesting limits for untrusted documents. JSON.parse takes any depth, but JSON.stringify, the
 * structured clone of IPC and every recursive walker overflow the stack somewhere past a few
 * thousand levels; real geodata needs fewer than twenty.
 */
export const MAX_NESTING = 100;

/**
 * Whether a JSON text nests arrays and objects deeper than `limit`; a linear scan that skips
 * strings, with no recursion, so it can run before the text is parsed.
 */
export function jsonTooDeep(text: string, limit = MAX_NESTING): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
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
