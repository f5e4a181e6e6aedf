import { MAX_NESTING } from '../../../ground/nesting';
/**
 * Splits a GeoJSON FeatureCollection into its features while reading it in chunks, so a file
 * of any size is parsed one feature at a time. The members before "features" (type, name, crs)
 * are parsed as the head; each element of the array is cut out by tracking brace depth outside
 * strings and handed to JSON.parse.
 */

export class GeoJsonStreamError extends Error {}

const FEATURES = /"features"\s*:\s*\[/;
const MAX_HEAD = 1 << 20;

export interface CollectionHead {
  type?: unknown;
  crs?: { properties?: { name?: string } };
}

export async function* streamFeatureCollection(chunks: AsyncIterable<string>, onHead: (head: CollectionHead) => void): AsyncGenerator<unknown> {
  let head = '';
  let inArray = false;
  let done = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let count = 0;
  for await (const chunk of chunks) {
    let text = chunk;
    if (!inArray) {
      head += text;
      const m = FEATURES.exec(head);
      if (!m) {
        if (head.length > MAX_HEAD) throw new GeoJsonStreamError('no "features" array near the start: not a FeatureCollection');
        continue;
      }
      let parsed: CollectionHead;
      try {
        parsed = JSON.parse(head.slice(0, m.index + m[0].length) + ']}') as CollectionHead;
      } catch {
        throw new GeoJsonStreamError('malformed JSON before the "features" array');
      }
      onHead(parsed);
      text = head.slice(m.index + m[0].length);
      head = '';
      inArray = true;
    }
    if (done) continue;
    let start = depth > 0 ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true; // backslash
        else if (c === 34) inString = false; // quote
        continue;
      }
      if (c === 34) inString = depth > 0;
      else if (c === 123 || c === 91) {
        // { or [
        if (depth === 0) {
          if (c === 91) throw new GeoJsonStreamError(`features[${count}] is an array, not a Feature`);
          start = i;
        }
        // Nothing past this is geodata, and what stores and sends features walks them by recursion.
        if (++depth > MAX_NESTING) throw new GeoJsonStreamError(`features[${count}]: JSON nested more than ${MAX_NESTING} levels deep`);
      } else if (c === 125 || c === 93) {
        // } or ]
        if (depth === 0) {
          if (c === 93) {
            done = true;
            break;
          }
          throw new GeoJsonStreamError(`unbalanced "}" after features[${count}]`);
        }
        depth--;
        if (depth === 0) {
          const text1 = element + text.slice(start, i + 1);
          element = '';
          start = -1;
          let f: unknown;
          try {
            f = JSON.parse(text1);
          } catch (e) {
            throw new GeoJsonStreamError(`features[${count}]: invalid JSON (${e instanceof Error ? e.message : String(e)})`);
          }
          count++;
          yield f;
        }
      } else if (depth === 0 && c !== 44 && c !== 32 && c !== 10 && c !== 13 && c !== 9) {
        throw new GeoJsonStreamError(`unexpected "${text[i]}" between features[${count - 1}] and features[${count}]`);
      }
    }
    if (depth > 0 && start >= 0) element += text.slice(start);
  }
  if (!inArray) throw new GeoJsonStreamError('no "features" array: not a FeatureCollection');
  if (!done) throw new GeoJsonStreamError(`the file ends inside the "features" array, after ${count} features (truncated?)`);
}
