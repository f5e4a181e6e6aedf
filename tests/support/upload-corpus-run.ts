import { openAsBlob } from 'node:fs';
import { BENCH_KEYS, memoryAfterGc, type ServiceProcess } from '../bench/service-harness';
import type { CorpusFile } from './malformed-uploads';

type Warning = { code: string; file?: string; rows?: { file: string; line: number }[]; more?: number };
type Feature = { properties: { name: string; attributes?: Record<string, unknown> } };

export interface CorpusFigures {
  files: number;
  answered: number;
  refused: number;
  wrong: string[];
  /** Requests after which /health did not answer 200. */
  healthFailures: number;
  serverErrors: number;
  rssStartMb: number;
  rssPeakMb: number;
  rssEndMb: number;
  /** Heap in use after a full collection, before and after the corpus: what the service kept. */
  heapBeforeMb: number;
  heapAfterMb: number;
  rssAfterGcMb: number;
  slowestMs: number;
}

/**
 * Sends each file of the corpus alone to the service's POST /v1/compute ("my sites"), checks the
 * answer against what the file was made to be, and probes /health after each. RSS of the
 * service process is sampled every 50 ms throughout.
 */
export async function runCorpus(svc: ServiceProcess, files: CorpusFile[]): Promise<CorpusFigures> {
  const auth = { authorization: `Bearer ${BENCH_KEYS.bearer}` };
  const before = await memoryAfterGc(svc);
  const rssStart = svc.rssKb();
  let peak = rssStart;
  const sampler = setInterval(() => (peak = Math.max(peak, svc.rssKb())), 50);
  const f: CorpusFigures = { files: files.length, answered: 0, refused: 0, wrong: [], healthFailures: 0, serverErrors: 0, rssStartMb: 0, rssPeakMb: 0, rssEndMb: 0, heapBeforeMb: 0, heapAfterMb: 0, rssAfterGcMb: 0, slowestMs: 0 };
  try {
    for (const file of files) {
      const form = new FormData();
      form.append('query', 'my sites');
      form.append('limit', '5');
      form.append('answer', 'false');
      form.append('files', await openAsBlob(file.path), file.sentAs ?? file.name);
      const t = performance.now();
      const res = await fetch(`${svc.baseUrl}/v1/compute`, { method: 'POST', headers: auth, body: form });
      const body = (await res.json()) as {
        results?: { numberMatched: number; features?: Feature[] };
        warnings?: Warning[];
        code?: string;
        detail?: string;
      };
      f.slowestMs = Math.max(f.slowestMs, performance.now() - t);
      if (res.status >= 500) f.serverErrors++;
      if (res.status === 200) f.answered++;
      else f.refused++;
      const problems = check(file, res.status, body);
      if (problems.length) f.wrong.push(`${file.name}: ${problems.join('; ')}`);
      const health = await fetch(`${svc.baseUrl}/health`).catch(() => null);
      if (health?.status !== 200) f.healthFailures++;
      await health?.arrayBuffer();
    }
  } finally {
    clearInterval(sampler);
  }
  f.rssStartMb = Math.round(rssStart / 1024);
  f.rssPeakMb = Math.round(peak / 1024);
  f.rssEndMb = Math.round(svc.rssKb() / 1024);
  f.slowestMs = Math.round(f.slowestMs);
  const after = await memoryAfterGc(svc);
  f.heapBeforeMb = before.heapUsedMb;
  f.heapAfterMb = after.heapUsedMb;
  f.rssAfterGcMb = after.rssMb;
  return f;
}

function check(
  file: CorpusFile,
  status: number,
  body: { results?: { numberMatched: number; features?: Feature[] }; warnings?: Warning[]; code?: string; detail?: string },
): string[] {
  const e = file.expect;
  const p: string[] = [];
  const named = () => {
    if (!body.detail?.startsWith(file.shownAs ?? file.name)) p.push(`detail does not name the file as ${JSON.stringify(file.shownAs ?? file.name)}: ${JSON.stringify(body.detail)}`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f]/.test(body.detail ?? '')) p.push(`detail holds a control character: ${JSON.stringify(body.detail)}`);
  };
  if (e.kind === 'answered') {
    if (status !== 200) return [`${status} ${body.code}: ${body.detail}`];
    if (body.results?.numberMatched !== e.rows) p.push(`${body.results?.numberMatched} rows, expected ${e.rows}`);
    const bad = body.warnings?.find((w) => w.code === 'bad_rows');
    if (e.badLines?.length) {
      const listed = (bad?.rows ?? []).filter((r) => r.file === file.name).map((r) => r.line);
      const expected = e.badLines.slice(0, listed.length || 1);
      if (listed.join() !== expected.join()) p.push(`flagged lines ${listed.join(',')}, expected ${e.badLines.slice(0, 20).join(',')}`);
      if (listed.length + (bad?.more ?? 0) !== e.badLines.length) p.push(`${listed.length}+${bad?.more} flagged, expected ${e.badLines.length}`);
    } else if (bad) p.push(`unexpected bad rows ${JSON.stringify(bad.rows?.slice(0, 3))}`);
    if (e.warning && !body.warnings?.some((w) => w.code === e.warning)) p.push(`no ${e.warning} warning (${body.warnings?.map((w) => w.code).join(',')})`);
    const features = body.results?.features ?? [];
    if ((e.attribute || e.names) && !features.length) p.push('no features returned');
    if (e.attribute) {
      const { name, like } = e.attribute;
      if (!features.every((f) => f.properties.attributes && Object.hasOwn(f.properties.attributes, name))) p.push(`a feature lacks the column ${name}`);
      const re = new RegExp(like);
      const off = features.map((f) => f.properties.attributes?.[name]).filter((v) => typeof v !== 'string' || !re.test(v));
      if (off.length) p.push(`${name} values not as sent: ${JSON.stringify(off.slice(0, 3))}`);
    }
    if (e.names) {
      const re = new RegExp(e.names);
      const off = features.map((f) => f.properties.name).filter((n) => !re.test(n));
      if (off.length) p.push(`names not from the name column: ${JSON.stringify(off.slice(0, 3))}`);
    }
  } else if (e.kind === 'refused') {
    if (status !== 400) return [`${status}, expected 400 ${e.code}`];
    if (body.code !== e.code) p.push(`code ${body.code}, expected ${e.code}: ${body.detail}`);
    named();
    if (e.line !== undefined && !body.detail?.includes(`line ${e.line}`)) p.push(`detail does not name line ${e.line}: ${body.detail}`);
    if (e.says && !body.detail?.includes(e.says)) p.push(`detail does not say "${e.says}": ${body.detail}`);
    if (e.never && body.detail?.includes(e.never)) p.push(`detail says "${e.never}": ${body.detail}`);
  } else if (e.kind === 'too_large') {
    if (status !== 413) return [`${status}, expected 413`];
    named();
  } else if (status === 400) named();
  else if (status !== 200) p.push(`status ${status}`);
  return p;
}
