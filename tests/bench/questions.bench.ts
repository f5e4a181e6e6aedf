import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMemoryLogger } from '../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog, pointLayer } from '../../electron/local-service/catalog/catalog';
import { UPLOADS } from '../../electron/local-service/catalog/kinds/uploads';
import { execute } from '../../electron/local-service/query/execute';
import { parseQuery } from '../../electron/local-service/query/parse';
import { UnreadQuestion } from '../../electron/local-service/query/refusal';
import { createLocalService } from '../../electron/local-service/server';
import { airportCandidates, generateCorpus, makeSites, runCorpus, siteCandidates, type CorpusQuestion } from '../support/questions/corpus';
import { generateTownCorpus, runTownCorpus } from '../support/questions/town-corpus';
import { writeTownFiles } from '../support/town/files';
import { printFigures, type Figures } from './figures';
import { layerParseExecute } from './questions-layer';
import { BENCH_KEYS } from './service-harness';
import { UploadSet } from '../../electron/local-service/upload/set';

/**
 * `npm run bench:questions [-- PLANS] [-- --layer-only]`: the time to read and run a question in
 * process over a generated layer of 1,000,000 features (`BENCH_QUESTIONS_LAYER_FEATURES`), then
 * the whole paraphrase corpus (PLANS plans, 4 wordings each; 800 by default: 3,200 questions)
 * through HTTP, each answer judged against the brute force over the raw data, the same time over
 * the built-in airports, and the town corpus (PLANS / 4 plans over the generated town's OSM layer,
 * in a service of its own). Prints figures; never fails.
 */
const args = process.argv.slice(2);
const layerOnly = args.includes('--layer-only');
const plans = Number(args.find((a) => /^\d+$/.test(a)) ?? 800);
const layerFeatures = Number(process.env['BENCH_QUESTIONS_LAYER_FEATURES'] ?? 1_000_000);
const catalog = loadCatalog(defaultCatalogDir());
const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-questions-'));
const service = createLocalService({ dataDir, keys: BENCH_KEYS, logger: createMemoryLogger(), clock: () => new Date(), catalog });
const { baseUrl } = await service.start();
const { sites, csv } = makeSites(120);
const headers = { authorization: `Bearer ${BENCH_KEYS.bearer}` };

async function ask(q: CorpusQuestion): Promise<string[] | null> {
  let res: Response;
  if (q.plan.subject === 'sites') {
    const form = new FormData();
    form.append('query', q.text);
    form.append('limit', '2000');
    form.append('files', new Blob([csv]), 'sites.csv');
    res = await fetch(`${baseUrl}/v1/compute`, { method: 'POST', headers, body: form });
  } else {
    res = await fetch(`${baseUrl}/v1/compute`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: q.text, limit: 2000 }),
    });
  }
  const body = (await res.json()) as { results?: { features: { properties: { source_id: string | number } }[] } };
  if (res.status === 422) return null;
  if (res.status !== 200 || !body.results) throw new Error(`${q.text}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.results.features.map((f) => String(f.properties.source_id));
}

/** The paraphrase corpus over the airports and uploads, the in-process time over the airports, and the town corpus. */
async function corpora(layerFigures: Figures): Promise<Figures> {
  const questions = generateCorpus(plans, 4);
  const started = performance.now();
  const { figures, failures } = await runCorpus(questions, ask, { airports: airportCandidates(), sites: siteCandidates(sites) });
  const httpMs = performance.now() - started;
  for (const f of failures) process.stdout.write(`${f.verdict}: ${f.text}\n`);

  // Reading and running one question in process (no HTTP, no saving), over the built-in catalog.
  const times: number[] = [];
  const uploads = { features: new UploadSet(), layer: pointLayer(UPLOADS.name, [], [], []) };
  for (const q of questions) {
    if (q.plan.subject !== 'airports') continue;
    const t0 = performance.now();
    try {
      const plan = parseQuery(q.text, { catalog, coordinates: [], fileNames: [] });
      if (!plan.notRead.length) await execute({ plan, catalog, uploads, coordinates: [], h3Cells: [] });
    } catch (e) {
      if (!(e instanceof UnreadQuestion)) throw e;
    }
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const out: Figures = {
    ...figures,
    corpus_http_ms_per_question: Math.round((httpMs / figures.corpus_questions) * 100) / 100,
    ...layerFigures,
    catalog_parse_execute_p50_ms: Math.round(times[Math.floor(times.length / 2)]! * 100) / 100,
    catalog_parse_execute_p99_ms: Math.round(times[Math.floor(times.length * 0.99)]! * 100) / 100,
    catalog_parse_execute_features: catalog.kinds.get('airport').size,
  };
  // The town corpus, in a service of its own so the town's words meet none of the airports'.
  const now = new Date(2026, 0, 2, 12, 45);
  const town = writeTownFiles(join(dataDir, 'town-files'));
  const townService = createLocalService({ dataDir: join(dataDir, 'town'), keys: BENCH_KEYS, logger: createMemoryLogger(), clock: () => now, catalog });
  try {
    const townUrl = (await townService.start()).baseUrl;
    await townService.layers.startImport(town.pbf, { name: 'Lennbrück OSM' }).done;
    const askTown = async (query: string) => {
      const res = await fetch(`${townUrl}/v1/compute`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query, limit: 2000 }) });
      const body = (await res.json()) as { results?: { features: { properties: { name: string } }[] } };
      if (res.status === 422) return null;
      if (res.status !== 200 || !body.results) throw new Error(`${query}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      return body.results.features.map((f) => f.properties.name);
    };
    const townRun = await runTownCorpus(generateTownCorpus(town.features, Math.max(1, Math.round(plans / 4)), 4), town.features, now, askTown);
    for (const f of townRun.failures) process.stdout.write(`town ${f}\n`);
    Object.assign(out, townRun.figures);
  } finally {
    await townService.close();
  }
  return out;
}

try {
  // Reading and running one question in process over a generated layer of a million features.
  const layerFigures = await layerParseExecute(catalog, dataDir, layerFeatures);
  printFigures(layerOnly ? layerFigures : await corpora(layerFigures));
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
