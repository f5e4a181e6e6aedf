const intFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const formatInt = (n: number): string => intFormat.format(n);

/** Metres as an analyst reads them: "850 m", "12.3 km", "1,204 km". */
export function formatDistance(meters: number | null | undefined): string {
  if (meters == null || !Number.isFinite(meters) || meters < 0) return '';
  if (meters < 1000) return `${intFormat.format(meters)} m`;
  const km = meters / 1000;
  return `${km < 100 ? oneDecimal.format(km) : intFormat.format(km)} km`;
}

/** "12 of 1,234 shown" or "All 12 shown". */
export function formatMatched(matched: number, returned: number): string {
  if (matched <= returned) return `${formatInt(returned)} ${returned === 1 ? 'result' : 'results'}`;
  return `${formatInt(returned)} of ${formatInt(matched)} matches shown`;
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

/** An RPC error in one line with its code first, and the HTTP status when there is one. */
export function errorText(e: ErrorLike): string {
  const d = e.details as Record<string, unknown> | undefined;
  const status = d && typeof d === 'object' && typeof d['status'] === 'number' ? ` ${d['status']}` : '';
  return `${e.code}${status}: ${e.message}`;
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
