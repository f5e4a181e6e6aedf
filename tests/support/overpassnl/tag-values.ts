import type { TagFilter } from './ql-parse';
import { qlRegex, tagTest } from './ql-run';

/**
 * Strings a value expression of a query matches, most plain first: "^(motorway|trunk)$" gives
 * "motorway", "trunk". Enough for the expressions queries use (alternatives, anchors, classes,
 * `.*`, optional parts); each candidate is checked against the expression by the caller.
 */
export function regexSamples(re: string): string[] {
  const alts: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < re.length; i++) {
    const c = re[i]!;
    if (c === '\\') {
      cur += c + (re[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '(' || c === '[') depth++;
    if (c === ')' || c === ']') depth--;
    if (c === '|' && depth === 0) {
      alts.push(cur);
      cur = '';
    } else cur += c;
  }
  alts.push(cur);
  const plain = (a: string) =>
    a
      .replace(/^\^|\$$/g, '')
      .replace(/\(\?i\)/g, '')
      .replace(/\(([^()|]*)\|[^()]*\)/g, '$1')
      .replace(/[()]/g, '')
      .replace(/\[\^[^\]]*\]/g, 'x')
      .replace(/\[([^\]])[^\]]*\]/g, '$1')
      .replace(/\\d/g, '0')
      .replace(/\\w/g, 'a')
      .replace(/\\s/g, ' ')
      .replace(/\.\*|\.\+/g, 'x')
      .replace(/(.)\?/g, '$1')
      .replace(/(.)\*/g, '$1')
      .replace(/(.)\+/g, '$1')
      .replace(/\{\d+(,\d*)?\}/g, '')
      .replace(/\\(.)/g, '$1')
      .replace(/\./g, 'x');
  return [...new Set(alts.map(plain).filter((x) => x.length > 0)), 'yes', 'x'];
}

/**
 * A value of `key` that every filter on it accepts, or undefined when leaving the key out does
 * (only negative filters), or null when no candidate does.
 */
export function valueFor(key: string, filters: readonly TagFilter[]): string | undefined | null {
  const own = filters.filter((f) => f.key === key);
  const ok = (v: string | undefined) => own.every((f) => tagTest(f, v === undefined ? {} : { [key]: v }));
  const positive = own.some((f) => f.op === 'exists' || f.op === '=' || f.op === '~');
  if (!positive) return ok(undefined) ? undefined : null;
  const candidates: string[] = [];
  for (const f of own) if (f.op === '=') candidates.push(f.value);
  for (const f of own) if (f.op === '~') candidates.push(...regexSamples(f.value));
  candidates.push('yes', 'residential', 'x');
  return candidates.find((v) => ok(v)) ?? null;
}

/** A value the filter `f` ("!=" or "!~" or absent) refuses, so that a tag breaks it. */
export function breakingValue(f: TagFilter): string | null {
  if (f.op === 'absent') return 'yes';
  if (f.op === '!=') return f.value;
  if (f.op === '!~') return regexSamples(f.value).find((v) => !!qlRegex(f.value, f.ci)?.test(v)) ?? null;
  return null;
}

/** Another value for a key whose "=" filter asked for `v`. */
export const otherValue = (v: string) => (v === 'yes' ? 'no' : 'yes');
