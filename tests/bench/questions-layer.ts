import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Catalog } from '../../electron/local-service/catalog/catalog';
import { asAsyncLayerStore } from '../../electron/local-service/layers/store/async-layer-store';
import { openSqliteLayerStore } from '../../electron/local-service/layers/store/sqlite-layer-store';
import { execute } from '../../electron/local-service/query/execute';
import { pointLayer } from '../../electron/local-service/catalog/catalog';
import { UPLOADS } from '../../electron/local-service/catalog/kinds/uploads';
import { parseQuery } from '../../electron/local-service/query/parse';
import { isGrammarWord } from '../../electron/local-service/query/words';
import { createVocabularyProvider } from '../../electron/local-service/vocabulary/provider';
import { syntheticFeatures, SYNTHETIC_BOX, writeSyntheticLayer } from '../support/synthetic-layer';
import type { Figures } from './figures';
import { UploadSet } from '../../electron/local-service/upload/set';

const QUESTIONS = 400;
const RAD = Math.PI / 180;
const haversineM = (lon1: number, lat1: number, lon2: number, lat2: number) => {
  const a = Math.sin(((lat2 - lat1) * RAD) / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(((lon2 - lon1) * RAD) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(a));
};

/**
 * Reading and running questions in process over one generated layer of `n` features (the
 * generator of bench:layers, in the embedded store): within a radius, the 10 nearest, a count and
 * a box, at seeded positions. Every "within 500 m" answer is checked against a haversine over the
 * generated points (lines aside); a wrong one stops the run.
 */
export async function layerParseExecute(catalog: Catalog, dataDir: string, n: number): Promise<Figures> {
  const t0 = performance.now();
  const embedded = openSqliteLayerStore({ dataDir: join(dataDir, 'layer-questions') });
  writeSyntheticLayer(embedded, n);
  const importMs = performance.now() - t0;
  const store = asAsyncLayerStore(embedded);
  const vocabulary = await createVocabularyProvider({ store: () => store, reserved: isGrammarWord }).get();
  // The generated points, for the check.
  const lon = new Float64Array(n);
  const lat = new Float64Array(n);
  const isPoint = new Uint8Array(n);
  const isPharmacy = new Uint8Array(n);
  let k = 0;
  for (const f of syntheticFeatures(n)) {
    if (f.geometry.type === 'Point') [lon[k], lat[k], isPoint[k]] = [f.geometry.coordinates[0]!, f.geometry.coordinates[1]!, 1];
    isPharmacy[k++] = f.properties['amenity'] === 'pharmacy' ? 1 : 0;
  }
  let s = 11;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const [west, south, east, north] = SYNTHETIC_BOX;
  const times: number[] = [];
  const noUploads = pointLayer(UPLOADS.name, [], [], []);
  let matched = 0;
  let checked = 0;
  try {
    for (let q = 0; q < QUESTIONS; q++) {
      const x = +(west + 0.1 + rand() * (east - west - 0.2)).toFixed(5);
      const y = +(south + 0.1 + rand() * (north - south - 0.2)).toFixed(5);
      const text = [
        `pharmacies within 500 m of ${y}, ${x}`,
        `the 10 nearest cafes to ${y}, ${x}`,
        `how many pharmacies within 1 km of ${y}, ${x}`,
        `cafes in bbox ${x},${y},${(x + 0.01).toFixed(5)},${(y + 0.01).toFixed(5)}`,
      ][q % 4]!;
      const t = performance.now();
      const plan = parseQuery(text, { vocabulary, catalog, coordinates: [], fileNames: [] });
      if (plan.notRead.length || !plan.layerSubject) throw new Error(`${text}: not read as a layer question (${JSON.stringify(plan.notRead)})`);
      const ex = await execute({ plan, catalog, uploads: { features: new UploadSet(), layer: noUploads }, coordinates: [], h3Cells: [], now: new Date(), layers: { store, summaries: vocabulary.summaries } });
      times.push(performance.now() - t);
      matched += ex.items.length;
      if (q % 4 === 0) {
        const got = new Set(ex.items.slice().filter((it) => it.hit!.f.geometry.type === 'Point').map((it) => it.hit!.f.sourceId));
        for (let i = 0; i < n; i++) {
          if (!isPoint[i] || !isPharmacy[i] || Math.abs(lat[i]! - y) > 0.01) continue;
          const d = haversineM(x, y, lon[i]!, lat[i]!);
          const id = String(i + 1);
          if ((d < 499.9 && !got.has(id)) || (d > 500.1 && got.has(id))) throw new Error(`${text}: feature ${id} at ${d.toFixed(1)} m answered wrongly`);
          got.delete(id);
        }
        if (got.size) throw new Error(`${text}: ${got.size} answered features are not within 500 m`);
        checked++;
      }
    }
  } finally {
    embedded.close();
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`layer of ${n} features written in ${(importMs / 1000).toFixed(1)} s; ${QUESTIONS} questions, ${(matched / QUESTIONS).toFixed(1)} results each, ${checked} checked\n`);
  return {
    parse_execute_p50_ms: Math.round(times[Math.floor(times.length / 2)]! * 100) / 100,
    parse_execute_p99_ms: Math.round(times[Math.floor(times.length * 0.99)]! * 100) / 100,
    parse_execute_features: n,
  };
}
