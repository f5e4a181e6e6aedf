import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compute, postJson, problem, startService, stopService, type Running } from './harness';

let r: Running;
beforeAll(async () => {
  r = await startService();
});
afterAll(() => stopService(r));

describe('user_id on a single-key service', () => {
  it('a saved query continues for its own user only; for anyone else it is unknown (404)', async () => {
    const first = await compute(r, { query: 'cities in Europe over 1 million people', user_id: 'u1' });
    const again = await compute(r, { query: 'only those in Spain', user_id: 'u1', search_id: first.id });
    expect(again.results.numberMatched).toBeLessThan(first.results.numberMatched);
    expect(again.results.numberMatched).toBeGreaterThan(0);
    const unknown = problem(await postJson(r, { query: 'only large ones', user_id: 'u2', search_id: '00000000-0000-4000-8000-000000000000' }));
    for (const body of [
      { query: 'only large ones', user_id: 'u2', search_id: first.id },
      { query: 'only large ones', search_id: first.id },
    ]) {
      const res = await postJson(r, body);
      expect(res.status).toBe(404);
      expect(problem(res).errors).toEqual(unknown.errors);
    }
    // Without a user on either side it continues, as before users existed.
    const anonymous = await compute(r, { query: 'airports in Portugal' });
    expect((await postJson(r, { query: 'only large ones', search_id: anonymous.id })).status).toBe(200);
  });
});
