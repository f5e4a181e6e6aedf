import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../electron/ground/logger';
import { createLocalService, type LocalService } from '../../../electron/local-service/server';
import { generateTownCorpus, runTownCorpus } from '../../support/questions/town-corpus';
import { writeTownFiles, type TownFiles } from '../../support/town/files';
import { catalog, databaseFor, KEYS } from '../local-service/harness';

/**
 * The paraphrase corpus over the town's OSM layer, reduced: each plan in several wordings, each
 * answer judged against the brute force over the generator's features.
 */
const NOW = new Date(2026, 0, 2, 12, 45);
let dir: string;
let town: TownFiles;
let service: LocalService;
let baseUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fieldlens-town-corpus-'));
  town = writeTownFiles(join(dir, 'files'));
  service = createLocalService({ dataDir: join(dir, 'data'), keys: KEYS, logger: createMemoryLogger(), clock: () => NOW, catalog: catalog(), database: await databaseFor(join(dir, 'data')) });
  ({ baseUrl } = await service.start());
  await service.layers.startImport(town.pbf, { name: 'Lennbrück OSM' }).done;
});
afterAll(async () => {
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The names of an answer, or null when the question was refused (422). */
async function ask(query: string): Promise<string[] | null> {
  const res = await fetch(`${baseUrl}/v1/compute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: 2000 }),
  });
  const body = (await res.json()) as { results: { features: { properties: { name: string } }[] } };
  if (res.status === 422) return null;
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.results.features.map((f) => f.properties.name);
}

describe('paraphrase corpus over a town layer (reduced)', () => {
  it('answers every wording of every plan as the brute force does; never broadened, never refused', { timeout: 300_000 }, async () => {
    const questions = generateTownCorpus(town.features, 25, 4);
    expect(questions).toHaveLength(100);
    const { figures, failures } = await runTownCorpus(questions, town.features, NOW, ask);
    console.log(`town corpus: ${JSON.stringify(figures)}`);
    // Most plans must have something to find, or the comparison says little.
    expect(figures.town_corpus_nonempty).toBeGreaterThan(questions.length / 2);
    expect(failures).toEqual([]);
    expect(figures.town_corpus_correct).toBe(questions.length);
  });
});
