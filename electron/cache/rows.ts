import type { QueryKind } from '../../shared/rpc/methods/history';
import type { Outcome, QuerySummary, RawBody } from './types';

/** Columns of a stored query, as inserted (storing) and read back (search, threads). */
export interface QueryInsert {
  kind: QueryKind;
  profile_id: string;
  query_text: string;
  request_json: string;
  outcome: Outcome;
  remote_id: string | null;
  search_id: string | null;
  rerun_of: number | null;
  answer_status: string | null;
  answer_content: string | null;
  answer_error_json: string | null;
  warnings_json: string | null;
  usage_json: string | null;
  usage_meters: number | null;
  number_matched: number | null;
  number_returned: number | null;
  page: number | null;
  page_total: number | null;
  region: string | null;
  region_id: string | null;
  year: string | null;
  started_at: number;
  finished_at: number;
  duration_ms: number;
  server_duration_ms: number | null;
  http_status: number | null;
  error_json: string | null;
  raw_response: string | Buffer | null;
  feature_count: number;
  minx: number | null;
  miny: number | null;
  maxx: number | null;
  maxy: number | null;
}

/** A stored query as read back: the inserted columns (less two that lists never read) plus its id. */
export type QueryRow = Omit<QueryInsert, 'region_id' | 'year' | 'raw_response'> & {
  id: number;
  raw_response?: string | Buffer | null;
};

// Everything but the raw body: lists never pay for reading it.
export const SUMMARY_COLUMNS = `id, kind, profile_id, query_text, request_json, outcome, remote_id, search_id, rerun_of,
  answer_status, answer_content, answer_error_json, warnings_json, usage_json, usage_meters,
  number_matched, number_returned, feature_count, page, page_total, region, started_at, finished_at,
  duration_ms, server_duration_ms, http_status, error_json, minx, miny, maxx, maxy`;

export const rawValue = (raw: RawBody | null): string | Buffer | null =>
  raw === null || typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

export const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const bool = (v: unknown): number | null => (typeof v === 'boolean' ? (v ? 1 : 0) : null);
export const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));
export const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function itemId(item: Record<string, unknown>, seq: number): string {
  const id = item['id'];
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : `#${seq}`;
}

/** The columns a summary reads (lists select no more). */
export type SummaryRow = Omit<QueryRow, 'request_json' | 'answer_error_json' | 'warnings_json' | 'usage_json' | 'error_json' | 'raw_response'>;

export function summary(r: SummaryRow): QuerySummary {
  return {
    id: r.id,
    kind: r.kind,
    profileId: r.profile_id,
    queryText: r.query_text,
    outcome: r.outcome,
    remoteId: r.remote_id,
    searchId: r.search_id,
    rerunOf: r.rerun_of,
    answerStatus: r.answer_status,
    answerContent: r.answer_content,
    featureCount: r.feature_count,
    numberMatched: r.number_matched,
    numberReturned: r.number_returned,
    usageMeters: r.usage_meters,
    page: r.page,
    pageTotal: r.page_total,
    region: r.region,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    durationMs: r.duration_ms,
    serverDurationMs: r.server_duration_ms,
    httpStatus: r.http_status,
    bbox: r.minx === null ? null : [r.minx, r.miny!, r.maxx!, r.maxy!],
  };
}
