import type { BBox } from './spatial';

import type { QueryKind } from '../../shared/rpc/methods/history';
export type { QueryKind };
export type Outcome = 'ok' | 'failed' | 'error';

/**
 * A response body as received: the bytes off the wire (stored as they are, which is also the
 * cheapest to bind) or, where only text exists, the text.
 */
export type RawBody = string | Uint8Array;

export interface UploadInput {
  field: 'files' | 'images';
  name: string;
  contentType?: string;
  content: Uint8Array;
}

export interface QueryMeta {
  profileId: string;
  /** The request body as sent (keys travel in headers and are never part of it). */
  request: Record<string, unknown>;
  startedAt: number;
  finishedAt: number;
  rerunOf?: number;
  uploads?: UploadInput[];
}

export interface StoredError {
  code: string;
  message: string;
  status?: number;
  body?: unknown;
}

export interface QuerySummary {
  id: number;
  kind: QueryKind;
  profileId: string;
  queryText: string;
  outcome: Outcome;
  remoteId: string | null;
  searchId: string | null;
  rerunOf: number | null;
  answerStatus: string | null;
  answerContent: string | null;
  featureCount: number;
  numberMatched: number | null;
  numberReturned: number | null;
  usageMeters: number | null;
  page: number | null;
  pageTotal: number | null;
  region: string | null;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  serverDurationMs: number | null;
  httpStatus: number | null;
  bbox: BBox | null;
}

export interface QueryRecord extends QuerySummary {
  request: unknown;
  answerError: unknown;
  warnings: unknown[];
  usage: unknown;
  error: StoredError | null;
  uploads: { field: 'files' | 'images'; name: string; size: number; sha256: string }[];
  /** The response body exactly as received (null when the request failed before a body). */
  raw: string | null;
}

export interface FeatureHit {
  rowId: number;
  queryId: number;
  seq: number;
  featureId: string;
  name: string | null;
  address: string | null;
  bbox: BBox | null;
}

export interface ListFilter {
  kind?: QueryKind;
  profileId?: string;
  text?: string;
  bbox?: BBox;
  /** One outer ring of [lon, lat]: entries with a feature whose box centre lies inside it. */
  polygon?: [number, number][];
  from?: number;
  to?: number;
  limit?: number;
  offset?: number;
}

export interface ThreadNode {
  query: QuerySummary;
  parentId: number | null;
  depth: number;
}

export interface FeatureDiff {
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: number;
}

export interface CacheStats {
  schemaVersion: number;
  queries: Record<QueryKind, number>;
  features: number;
  uploads: { count: number; bytes: number };
  media: { count: number; bytes: number };
  dbBytes: number;
  walBytes: number;
}

export interface MediaEntry {
  url: string;
  contentType: string;
  bytes: Buffer;
  fetchedAt: number;
}

