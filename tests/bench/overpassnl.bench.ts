import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryLogger } from '../../electron/ground/logger';
import { defaultCatalogDir, loadCatalog } from '../../electron/local-service/catalog/catalog';
import { normalizeName } from '../../electron/local-service/catalog/text';
import { createLocalService } from '../../electron/local-service/server';
import { packScenes } from '../support/overpassnl/batches';
import { readSplit, type NlRequest } from '../support/overpassnl/dataset';
import { buildScene, type Scene } from '../support/overpassnl/extract';
import { judge, namesTag, refusalCauses, top } from '../support/overpassnl/judge';
import { extractXml } from '../support/overpassnl/osm-xml';
import { LeftOut, mainTag, parseQl, queriesOf, type Program } from '../support/overpassnl/ql-parse';
import { UNSTATED, UNSTATED_BOX, unstatedBox, unstatedTest } from '../support/overpassnl/unstated';
import { runQl } from '../support/overpassnl/ql-run';
import { BENCH_KEYS } from './service-harness';

/**
 * `npm run bench:overpassnl [-- --split dev|train] [-- --limit N]`: the question reader on
 * requests nobody on the team wrote, the OverpassNL data set (OpenStreetMap users' requests to
 * overpass-turbo, each with the query the community wrote for it), read from OVERPASSNL_DIR (the
 * folder of dataset.<split>.{nl,query,bbox}; never copied here). Each request whose query is in the
 * judged subset (tests/support/overpassnl/ql-parse.ts) gets a synthetic extract built from that
 * query (matches and near misses, its named areas as boundaries); the extracts of many requests,
 * apart from each other, are one OSM layer of the bundled service; the request's words go to
 * /v1/compute (with the map view when the query uses it, if the service takes one) and the answer
 * is judged by feature id against the query run over the layer's extract. Prints figures; never fails.
 */
const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const split = opt('split') ?? 'dev';
const limit = Number(opt('limit') ?? Infinity);
/** `--lines 12,40`: only the requests of those lines of the split (to look at a few closely). */
const lines = opt('lines')?.split(',').map(Number);
const BATCH = 25;
const dir = process.env['OVERPASSNL_DIR'];
const requests = dir ? readSplit(dir, split) : null;
if (!requests) {
  process.stdout.write(`bench:overpassnl skipped: set OVERPASSNL_DIR to the folder holding dataset.${split}.nl and dataset.${split}.query\n`);
  process.exit(0);
}

let s = 20240611;
const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
const catalog = loadCatalog(defaultCatalogDir());
const usesView = (p: Program) => p.globalBox === 'view' || JSON.stringify(p.stmts).includes('"box":"view"');

/** Where a request's scene goes: a position of its query, its box, its view, else a large city's place. */
function centerOf(p: Program, r: NlRequest): [number, number] {
  for (const q of queriesOf(p.stmts)) for (const f of q.filters) if (f.kind === 'around') return [f.lon, f.lat];
  const box = Array.isArray(p.globalBox) ? p.globalBox : queriesOf(p.stmts).flatMap((q) => q.filters).find((f) => f.kind === 'bbox' && f.box !== 'view');
  const b = Array.isArray(box) ? box : box && box.kind === 'bbox' && Array.isArray(box.box) ? box.box : null;
  if (b) return [(b[1] + b[3]) / 2, (b[0] + b[2]) / 2];
  if (r.view && usesView(p)) return [(r.view[1] + r.view[3]) / 2, (r.view[0] + r.view[2]) / 2];
  // A named area where the gazetteer has it, so the request's other place words ("…, Belgium") hold there too.
  for (const st of p.stmts) {
    const names = st.kind === 'geocodeArea' ? st.names : st.kind === 'areaQuery' ? st.filters.flatMap((f) => (f.kind === 'tag' && f.op === '=' && f.key === 'name' ? [f.value] : [])) : [];
    for (const name of names) {
      const key = normalizeName(name);
      const city = catalog.cityByName.get(key)?.[0];
      if (city !== undefined) return [catalog.cities.lon[city]!, catalog.cities.lat[city]!];
      const country = catalog.countryByName.get(key);
      const capital = country === undefined ? undefined : catalog.capitalOf.get(catalog.countries.rows[country]!.cca2);
      if (capital !== undefined && capital >= 0) return [catalog.cities.lon[capital]!, catalog.cities.lat[capital]!];
    }
  }
  if (r.view) return [(r.view[1] + r.view[3]) / 2, (r.view[0] + r.view[2]) / 2];
  const c = catalog.cities;
  const idx = c.byPopulation[Math.floor(rand() * Math.min(5000, c.byPopulation.length))]!;
  return [c.lon[idx]!, c.lat[idx]!];
}

interface Item {
  req: NlRequest;
  program: Program;
  scene: Scene;
  gold: Set<string>;
}

const leftOut = new Map<string, number>();
const items: Item[] = [];
const ids = { next: 1 };
const taken = requests.filter((r) => !lines || lines.includes(r.line)).slice(0, limit);
for (const req of taken) {
  try {
    const program = parseQl(req.query);
    if (unstatedTest(program, req.nl)) throw new LeftOut(UNSTATED);
    if (unstatedBox(program, req.nl)) throw new LeftOut(UNSTATED_BOX);
    const countries = program.stmts.flatMap((st) => (st.kind === 'geocodeArea' ? st.names : [])).filter((n) => catalog.countryByName.has(normalizeName(n)));
    const scene = buildScene({ program, center: centerOf(program, req), view: req.view, ids, rand, countries });
    items.push({ req, program, scene, gold: scene.gold });
  } catch (e) {
    if (!(e instanceof LeftOut)) throw e;
    leftOut.set(e.reason, (leftOut.get(e.reason) ?? 0) + 1);
  }
}
process.stdout.write(`${split}: ${taken.length} requests, ${items.length} in the judged subset\n`);

const dataDir = mkdtempSync(join(tmpdir(), 'fieldlens-bench-overpassnl-'));
const service = createLocalService({ dataDir, keys: BENCH_KEYS, logger: createMemoryLogger(), clock: () => new Date(), catalog });
const { baseUrl } = await service.start();
const headers = { authorization: `Bearer ${BENCH_KEYS.bearer}`, 'content-type': 'application/json' };
const compute = (body: Record<string, unknown>) => fetch(`${baseUrl}/v1/compute`, { method: 'POST', headers, body: JSON.stringify(body) });

// Whether the compute request takes the map view yet: an unknown field is ignored with a warning.
const probe = await compute({ query: 'airports in France', limit: 1, answer: false, view_bbox: [1, 45, 2, 46] });
const probeText = await probe.text();
const takesView = probe.status === 200 && !/unknown_fields[^}]*view_bbox/.test(probeText);
process.stdout.write(`the compute request ${takesView ? 'takes' : 'does not take'} view_bbox\n`);

const tally = { correct: 0, refused: 0, wrong: 0, broader: 0, needsView: 0, errors: 0, namesTag: 0, judged: 0 };
const refusals = new Map<string, number>();
/** The same causes without the words they name. */
const refusalReasons = new Map<string, number>();
const t0 = Date.now();
try {
  const batches = packScenes(items, BATCH);
  let n = 0;
  for (const [b, batch] of batches.entries()) {
    const elements = batch.flatMap((it) => it.scene.elements);
    const file = join(dataDir, `batch-${b}.osm`);
    writeFileSync(file, extractXml(elements, 1_000_000_000));
    const layer = await service.layers.startImport(file, { name: 'onlx' }).done;
    try {
      for (const it of batch) {
        n++;
        const view = it.scene.view;
        // The gold set over the whole layer: a query with no place condition sees every scene of it.
        const gold = runQl(it.program, elements, { view });
        for (const k of it.scene.expected) if (!gold.has(k)) throw new Error(`line ${it.req.line}: a placed match left the gold set in its layer`);
        if (usesView(it.program) && !takesView) {
          tally.needsView++;
          continue;
        }
        const body: Record<string, unknown> = { query: it.req.nl, limit: 2000, answer: false };
        if (usesView(it.program)) body['view_bbox'] = [view[1], view[0], view[3], view[2]];
        const res = await compute(body);
        const json = (await res.json()) as Record<string, unknown>;
        const tag = mainTag(it.program);
        let verdict: string;
        let diff = '';
        if (res.status === 422) {
          tally.refused++;
          verdict = 'refused';
          for (const c of refusalCauses(json)) {
            refusals.set(c, (refusals.get(c) ?? 0) + 1);
            const reason = c.split(' · ')[0]!;
            refusalReasons.set(reason, (refusalReasons.get(reason) ?? 0) + 1);
          }
          if (namesTag(JSON.stringify(json), tag)) tally.namesTag++;
        } else if (res.status === 200) {
          const feats = ((json['results'] as { features?: { properties: { source_id?: unknown } }[] } | undefined)?.features ?? []);
          const answer = new Set(feats.map((f) => String(f.properties.source_id)));
          verdict = judge(answer, gold);
          diff = `missing ${[...gold].filter((k) => !answer.has(k)).join(' ')}; extra ${[...answer].filter((k) => !gold.has(k)).slice(0, 8).join(' ')}`;
          tally[verdict as 'correct' | 'broader' | 'wrong']++;
          if (namesTag(JSON.stringify(json['warnings'] ?? []), tag)) tally.namesTag++;
        } else {
          tally.errors++;
          verdict = `http ${res.status}`;
        }
        tally.judged++;
        if (verdict !== 'correct' && process.env['OVERPASSNL_VERBOSE'])
          process.stdout.write(`  ${verdict} line ${it.req.line}: ${it.req.nl}\n    gold ${it.req.query.slice(0, lines ? 2000 : 160)}\n    ${diff}\n    ${JSON.stringify(json['unread'] ?? (json['warnings'] as unknown[] | undefined)?.slice(0, 3) ?? json).slice(0, lines ? 4000 : 300)}\n`);
      }
    } finally {
      await service.layers.remove(layer.id);
    }
    process.stdout.write(`layer ${b + 1}/${batches.length}: ${n}/${items.length} requests, ${tally.correct} correct, ${tally.refused} refused, ${tally.wrong} wrong, ${tally.broader} broader (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const out = {
  overpassnl_split: split,
  overpassnl_requests: taken.length,
  overpassnl_judged: tally.judged,
  overpassnl_left_out: Object.fromEntries([...leftOut].sort((a, b) => b[1] - a[1])),
  overpassnl_needs_view: tally.needsView,
  overpassnl_correct: tally.correct,
  overpassnl_refused: tally.refused,
  overpassnl_wrong: tally.wrong,
  overpassnl_broader: tally.broader,
  overpassnl_errors: tally.errors,
  overpassnl_correct_pct: tally.judged ? Math.round((tally.correct / tally.judged) * 1000) / 10 : 0,
  overpassnl_names_gold_tag: tally.namesTag,
  overpassnl_top_refusals: top(refusals, 10),
  overpassnl_refusal_reasons: top(refusalReasons, 10),
};
process.stdout.write(JSON.stringify(out) + '\n');
