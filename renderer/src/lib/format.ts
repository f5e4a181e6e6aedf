import { DEFAULT_UNITS, formatLength, type Units } from './units';

const intFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const formatInt = (n: number): string => intFormat.format(n);

/** Metres as an analyst reads them, in the chosen units: "850 m", "12.3 km", "7.6 mi". */
export function formatDistance(meters: number | null | undefined, units: Units = DEFAULT_UNITS): string {
  if (meters == null || !Number.isFinite(meters) || meters < 0) return '';
  return formatLength(meters, units);
}

/** "12 of 1,234 shown" or "All 12 shown". */
export function formatMatched(matched: number, returned: number): string {
  if (matched <= returned) return `${formatInt(returned)} ${returned === 1 ? 'result' : 'results'}`;
  return `${formatInt(returned)} of ${formatInt(matched)} matches shown`;
}

/** A service's internal code leading a sentence ("bad_rows: 3 rows…"): snake_case, then a colon. */
const LEADING_CODE = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)+):\s+([\s\S]*)$/;

/** A sentence for a person and the code behind it, kept apart so the code can sit one click away. */
export function splitCode(text: string): { text: string; code: string | null } {
  const m = LEADING_CODE.exec(text);
  if (!m) return { text, code: null };
  const rest = m[2]!;
  return { text: rest.charAt(0).toUpperCase() + rest.slice(1), code: m[1]! };
}

/** A warning as a sentence and its code (from its `code` field, or leading its text). */
export function warningParts(w: unknown): { text: string; code: string | null } {
  if (w && typeof w === 'object') {
    const o = w as Record<string, unknown>;
    for (const k of ['message', 'detail', 'text', 'title', 'warning', 'msg']) {
      const v = o[k];
      if (typeof v === 'string' && v.trim()) {
        const inner = splitCode(v);
        return { text: inner.text, code: typeof o['code'] === 'string' ? o['code'] : inner.code };
      }
    }
  }
  return typeof w === 'string' ? splitCode(w) : { text: warningText(w), code: null };
}

/** Warnings have no fixed shape: a string, or an object with some message-like field. */
export function warningText(w: unknown): string {
  if (typeof w === 'string') return w;
  if (w && typeof w === 'object') {
    const o = w as Record<string, unknown>;
    for (const k of ['message', 'detail', 'text', 'title', 'warning', 'msg']) {
      const v = o[k];
      if (typeof v === 'string' && v.trim()) return typeof o['code'] === 'string' ? `${o['code']}: ${v}` : v;
    }
    return JSON.stringify(w);
  }
  return String(w);
}

/** An error as RPC or the cache reports it. */
export interface ErrorLike {
  code: string;
  message: string;
  details?: unknown;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

/** Field problems an error carries: the service's field errors, or the contract's issues. */
export function errorFields(e: ErrorLike): { field: string; message: string }[] {
  const d = record(e.details);
  const list = Array.isArray(d['fieldErrors']) ? d['fieldErrors'] : Array.isArray(d['issues']) ? d['issues'] : [];
  return list
    .map((x) => record(x))
    .filter((x) => typeof x['message'] === 'string')
    .map((x) => ({ field: String(x['field'] ?? x['path'] ?? ''), message: String(x['message']) }));
}

/**
 * The one sentence a person needs: what the service said (problem+json `detail`), else its
 * field errors ("limit: Too big"), else the message without the transport's framing.
 */
export function errorSentence(e: ErrorLike): string {
  const d = record(e.details);
  // The code is in the note's Details; the sentence is for a person.
  if (typeof d['serverMessage'] === 'string' && d['serverMessage'].trim()) return splitCode(d['serverMessage'].trim()).text;
  const fields = errorFields(e);
  // "request.limit" reads as "limit": the field a person typed into.
  if (fields.length)
    return fields.map((f) => (f.field ? `${f.field.split('.').at(-1)}: ${f.message}` : f.message)).join('; ');
  return splitCode(e.message).text;
}

/** The HTTP status an error carries, if any. */
export function errorStatus(e: ErrorLike): number | null {
  const s = record(e.details)['status'];
  return typeof s === 'number' ? s : null;
}

/** An error in one line for the status bar: the sentence that matters. */
export function errorText(e: ErrorLike): string {
  return errorSentence(e);
}

/** Text capped at `max` characters (with an ellipsis), so one huge value cannot swamp a view. */
export function clipText(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Long prose capped, and any single word longer than `word` characters cut short. */
export function clipProse(s: string, max = 4000, word = 80): string {
  return clipText(s.replace(new RegExp(`\\S{${word + 1},}`, 'g'), (w) => `${w.slice(0, word - 1)}…`), max);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Local date and time, "2026-11-22 08:54". */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${oneDecimal.format(n / 1024)} KB`;
  return `${oneDecimal.format(n / 1024 / 1024)} MB`;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${oneDecimal.format(ms / 1000)} s`;
}

/** "+3 added, 1 removed, 2 changed" for a rerun's comparison. */
export function diffText(d: { added: readonly string[]; removed: readonly string[]; changed: readonly string[]; unchanged: number }): string {
  return `${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} changed, ${d.unchanged} unchanged`;
}

/** Capture dates arrive as display text ("March 5, 2024") or ISO timestamps; the latter are shortened. */
export function formatCaptureDate(s: string | null): string | null {
  if (!s) return null;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(s);
  return m ? `${m[1]} ${m[2]}` : s;
}

/** A position as "48.8584° N, 2.2945° E". */
export function formatLonLat([lon, lat]: readonly [number, number]): string {
  return `${Math.abs(lat).toFixed(4)}° ${lat < 0 ? 'S' : 'N'}, ${Math.abs(lon).toFixed(4)}° ${lon < 0 ? 'W' : 'E'}`;
}

/** A length in seconds as a clock: 75 → "1:15", 3725 → "1:02:05". */
export function formatClock(seconds: number): string {
  const t = Math.max(0, Math.round(seconds));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = String(t % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
