import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { airportCandidates, generateCorpus, makeSites, runCorpus, siteCandidates, type CorpusQuestion } from '../../support/questions/corpus';
import { fileForm, postForm, postJson, startService, stopService, type Running } from './harness';

/**
 * The paraphrase corpus, reduced (the whole runs in `npm run bench:questions`): every plan in
 * several wordings, each answer checked against the brute force over the raw data.
 */
let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(() => stopService(r));

const { sites, csv } = makeSites(120);

/** The ids of an answer, or null when the question was refused (422). */
async function ask(q: CorpusQuestion): Promise<string[] | null> {
  const res =
    q.plan.subject === 'sites'
      ? await postForm(r, fileForm({ query: q.text, limit: '2000' }, [{ name: 'sites.csv', text: csv }]))
      : await postJson(r, { query: q.text, limit: 2000 });
  if (res.status === 422) return null;
  if (res.status !== 200) throw new Error(`${q.text}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return (res.body as { results: { features: { properties: { source_id: string | number } }[] } }).results.features.map((f) => String(f.properties.source_id));
}

describe('paraphrase corpus (reduced)', () => {
  it('answers every wording of every plan as the brute force does, typos included; never broadened', { timeout: 300_000 }, async () => {
    const questions = generateCorpus(30, 4);
    const { figures, failures } = await runCorpus(questions, ask, { airports: airportCandidates(), sites: siteCandidates(sites) });
    expect(figures.corpus_questions).toBe(120);
    expect(failures.filter((f) => f.verdict === 'broadened')).toEqual([]);
    expect(figures.corpus_broadened).toBe(0);
    expect(failures.filter((f) => f.verdict === 'wrong')).toEqual([]);
    // Typos one edit from a known word are read as it (said in a warning): none is refused either.
    expect(figures.corpus_typo_questions).toBe(30);
    expect(failures).toEqual([]);
    expect(figures.corpus_correct).toBe(figures.corpus_questions);
  });
});
