import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeErrorBody } from '../../../electron/client/errors';
import { defaultCatalogDir, loadCatalog } from '../../../electron/local-service/catalog/catalog';
import { parseQuery } from '../../../electron/local-service/query/parse';
import { readingOf } from '../../../electron/local-service/query/reading';
import {
  chipText,
  chipsOf,
  figuresOf,
  questionOf,
  questionWithoutUnread,
  withFigure,
  withoutChip,
} from '../../../renderer/src/lib/reading';
import { QuestionReading, readingOfWarnings, UnreadRefusal } from '../../../shared/service/reading';
import { compute, postJson, startService, stopService, type Running } from './harness';
import { generateCorpus } from '../../support/questions/corpus';

/**
 * The chips of a reading and the questions written back from them, read again by the service's
 * own reader: a question written from an unchanged reading reads as the same plan, and one written
 * from changed chips reads as the change and nothing else.
 */
const catalog = loadCatalog(defaultCatalogDir());
let r: Running;
beforeAll(async () => {
  r = await startService({ catalog });
});
afterAll(() => stopService(r));
const read = (q: string, files: string[] = []) => {
  const plan = parseQuery(q, { catalog, coordinates: [], fileNames: files });
  return { plan, reading: QuestionReading.parse(JSON.parse(JSON.stringify(readingOf(plan, catalog, plan.subject)), round)) };
};
/** Kilometres from a figure and its unit may differ in the last bit between two wordings of one figure. */
const round = (_: string, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v);
/** A reading without the figure as said: "near Lyon" said none, its written-back "within 50 km" says one. */
const unsaid = (r: QuestionReading) => ({ ...r, relations: r.relations.map(({ said: _said, ...x }) => x) });

describe('a reading written back as a question reads the same', () => {
  it('every wording of 60 corpus plans (airports and uploaded sites; places, rings, beyond, nearest and farthest N, countries, sizes)', () => {
    // Wordings with a typo are read by the service's typo pass, which this reader runs without.
    const questions = generateCorpus(60, 4).filter((q) => !q.typo);
    expect(questions.length).toBeGreaterThan(150);
    for (const q of questions) {
      const files = q.plan.subject === 'sites' ? ['sites.csv'] : [];
      const first = read(q.text, files);
      expect(first.plan.notRead, q.text).toEqual([]);
      const written = questionOf(chipsOf(first.reading));
      const again = read(written, files);
      expect(again.plan.notRead, `${q.text} -> ${written}`).toEqual([]);
      expect(again.reading, `${q.text} -> ${written}`).toEqual(first.reading);
    }
  });

  it('filters, boxes, population ranges, positions, classes and figures per country', () => {
    for (const q of [
      'cities over 1 million people in Spain',
      'cities between 100k and 500k in Italy',
      'cities under 50,000 in Malta',
      'top 5 largest cities in France',
      'smallest cities in Iceland',
      'cities in bbox 4.5,45.5,5.5,46',
      'nearest airports to 48.8566, 2.3522',
      'nearest airports to 31U 452000 5411000',
      'the 3 farthest airports from Lyon',
      'airports within 20 km of a city over 1 million people',
      'large airports in France between 1 and 2 km of Paris',
      'cities more than 100 km from Madrid',
      'cities at least 10 mi from Lyon',
      'airports within 60 nmi of Athens nearest first',
      'airports near Lyon',
      'how many airports in France',
      'airports in France per country',
      'cities in France per capita',
    ]) {
      const first = read(q);
      expect(first.plan.notRead, q).toEqual([]);
      const written = questionOf(chipsOf(first.reading));
      const again = read(written);
      expect(again.plan.notRead, `${q} -> ${written}`).toEqual([]);
      expect(unsaid(again.reading), `${q} -> ${written}`).toEqual(unsaid(first.reading));
    }
  });
});

describe('chips changed', () => {
  it('one chip per part, numbers where they can change', () => {
    const chips = chipsOf(read('the 5 nearest large airports in France within 600 km of Lyon').reading);
    expect(chips.map((c) => [c.part, chipText(c)])).toEqual([
      ['subject', 'large airports'],
      ['area', 'in France'],
      ['relation', 'within 600 km of Lyon, France'],
      ['order', 'nearest first'],
      ['limit', 'first 5'],
    ]);
    expect(chips.map((c) => figuresOf(c).map((f) => f.value))).toEqual([[], [], [600], [], [5]]);
    expect(chips.map((c) => c.removable)).toEqual([false, true, true, true, true]);
    // The km figure after another unit is shown, not edited: it follows from the figure said.
    const nmi = chipsOf(read('airports within 60 nmi of Athens').reading).find((c) => c.part === 'relation')!;
    expect(chipText(nmi)).toBe('within 60 nmi (111 km) of Athens, Greece');
    expect(figuresOf(nmi).map((f) => f.value)).toEqual([60]);
  });

  it('a changed distance or count reads as the new figure, in the unit said', () => {
    const chips = chipsOf(read('the 5 nearest airports within 500 m of Lyon').reading);
    const wider = withFigure(withFigure(chips, 'relation:0', 0, 800), 'limit', 0, 10);
    const again = read(questionOf(wider)).reading;
    expect(again.relations[0]).toMatchObject({ max_km: 0.8, said: '800 m' });
    expect(again.top).toBe(10);
    expect(again.order).toBe('nearest first');
    const ring = chipsOf(read('cities between 500 m and 2 km from Lyon').reading);
    expect(figuresOf(ring.find((c) => c.part === 'relation')!).map((f) => f.value)).toEqual([500, 2]);
    expect(read(questionOf(withFigure(ring, 'relation:0', 1, 3.5))).reading.relations[0]).toMatchObject({ min_km: 0.5, max_km: 3.5 });
    const pop = chipsOf(read('cities over 1 million people in Spain').reading);
    expect(read(questionOf(withFigure(pop, 'filter:1', 0, 2_500_000))).plan.popMin).toBe(2_500_000);
  });

  it('a removed chip leaves the rest read as before; an order by distance goes with the last distance', () => {
    const chips = chipsOf(read('large airports in France within 600 km of Lyon nearest first').reading);
    const noCountry = read(questionOf(withoutChip(chips, 'filter:0')));
    expect(noCountry.plan.notRead).toEqual([]);
    expect(noCountry.reading.filters).toEqual([]);
    expect(noCountry.reading.relations).toEqual(read('airports within 600 km of Lyon').reading.relations);
    expect(noCountry.reading.order).toBe('nearest first');
    const noDistance = withoutChip(chips, 'relation:0');
    expect(noDistance.map((c) => c.part)).toEqual(['subject', 'area']);
    expect(read(questionOf(noDistance)).reading.text).toBe('large airports · in France');
  });
});

describe('a refused question offered without what was not read', () => {
  it('drops exactly the steps the refusal names, and an order by distance left without a distance', () => {
    // The reading of the question as the service gives it; the steps named by hand.
    const refusal = (q: string, ...unread: [string, string?][]): UnreadRefusal => {
      const { reading } = read(q);
      return {
        code: 'unread_question',
        unread: unread.map(([words, step]) => ({ words, why: 'not read', ...(step ? { step } : {}) })),
        reading: reading.text,
        plan: reading,
      };
    };
    expect(questionWithoutUnread(refusal('largest airports in France', ['largest', 'order']))).toBe('airports in France');
    expect(questionWithoutUnread(refusal('airports in France over 1 million people', ['population filter', 'filter:1']))).toBe('airports in France');
    expect(questionWithoutUnread(refusal('airports in Spain within 20 km of Lyon nearest first', ['Lyon', 'relation:0']))).toBe('airports in Spain');
    // A step whose words are not the unread ones, but which holds them, goes all the same.
    expect(questionWithoutUnread(refusal('airports near Springfield, France', ['Springfield, France', 'relation:0']))).toBe('airports');
    // Words no step holds leave every step: the one that merely shares a word stays.
    expect(questionWithoutUnread(refusal('the 5 nearest airports to Lyon', ['Lyon glorp']))).toBe('airports by distance to Lyon, France nearest first top 5');
    expect(questionWithoutUnread(refusal('airports in France', ['purple']))).toBe('airports in France');
    // Nothing to ask when the subject itself was not read.
    expect(questionWithoutUnread(refusal('xyzzy plugh', ['xyzzy plugh']))).toBeNull();
    expect(questionWithoutUnread(refusal('airports in France', ['airports', 'subject']))).toBeNull();
  });
});

describe('every modifier of every kind in its own words', () => {
  it('a reading with one modifier value reads back as the same reading', () => {
    let checked = 0;
    for (const { entry } of catalog.kinds.list) {
      for (const m of entry.modifiers ?? []) {
        // Every value a word of the entry sets: its adjectives, and its nouns that imply it.
        const values = new Set([...(m.words ?? []).map((x) => x.value), ...entry.nouns.flatMap((n) => (n.sets && m.key in n.sets ? [n.sets[m.key]!] : []))]);
        for (const value of values) {
          const plan = parseQuery(entry.label.many, { catalog, coordinates: [], fileNames: [] });
          expect(plan.subject, entry.name).toBe(entry.name);
          plan[m.key] = value;
          const reading = readingOf(plan, catalog, plan.subject);
          const written = questionOf(chipsOf(reading));
          const again = read(written);
          expect(again.plan.notRead, `${entry.name} ${m.key}=${value} -> ${written}`).toEqual([]);
          expect(again.plan[m.key], written).toBe(value);
          expect(again.reading.text, written).toBe(reading.text);
          checked++;
        }
      }
    }
    // Airports' large and medium, cities' capital.
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});

describe('positions as typed', () => {
  it('a position typed to 6 decimals is written back to the same point', () => {
    const q = 'the 3 nearest airports to 48.856613, 2.352222';
    const first = read(q);
    expect(first.reading.relations[0]!.reference).toBe('48.856613, 2.352222');
    const again = read(questionOf(chipsOf(first.reading)));
    const ref = again.plan.distanceRef;
    expect(ref?.type === 'points' && ref.points[0]).toMatchObject({ lat: 48.856613, lon: 2.352222 });
    // Decimals past the sixth (a tenth of a metre) are rounded, not kept.
    expect(read('nearest airports to -33.86881234, 151.20929').reading.relations[0]!.reference).toBe('-33.868812, 151.20929');
  });
});

describe('through the service', () => {
  it('answers carry the reading in the shared shape, and no field beyond it', async () => {
    for (const q of ['the 5 nearest large airports in France within 600 km of Lyon', 'cities between 100k and 500k in Italy', 'airports within 60 nmi of Athens']) {
      const res = await compute(r, { query: q, limit: 5 });
      const plan = res.warnings.find((w) => (w as { code?: unknown }).code === 'plan') as { reading: unknown };
      expect(QuestionReading.strict().parse(plan.reading)).toEqual(readingOfWarnings(res.warnings));
    }
  });

  it('a refusal reaches the app with its parts, and its rest asked again is answered', async () => {
    // The question, the rest asked again, and how the service then reads it.
    const cases: [string, string, string][] = [
      ['airports with runways longer than 3,000 m in Greece', 'airports in Greece', 'airports · in Greece'],
      ['largest airports in France', 'airports in France', 'airports · in France'],
      ['airports over 1 million people', 'airports', 'airports'],
      ['airports within 20 km of a fire station', 'airports', 'airports'],
      ['nearest airports', 'airports', 'airports'],
      ['the 5 nearest purple airports to Lyon', 'airports by distance to Lyon, France nearest first top 5', 'airports · distance to Lyon, France · nearest first · first 5'],
      ['airports near Springfield, France', 'airports', 'airports'],
      ['airports in Spain more than 30 leagues from Madrid', 'airports in Spain', 'airports · in Spain'],
      ['airports with a long runway within 50 km of Lyon', 'airports within 50 km of Lyon, France', 'airports · within 50 km of Lyon, France'],
      ['cities within 50 km of Lyon over 100 furlongs', 'cities within 50 km of Lyon, France', 'cities · within 50 km of Lyon, France'],
    ];
    for (const [q, rest, restReading] of cases) {
      const res = await postJson(r, { query: q, limit: 5 });
      expect(res.status, q).toBe(422);
      const { refusal } = describeErrorBody(JSON.stringify(res.body), res.contentType);
      expect(UnreadRefusal.strict().parse(refusal)).toEqual(refusal);
      expect(QuestionReading.strict().parse(refusal!.plan).text, q).toBe(refusal!.reading);
      expect(questionWithoutUnread(refusal!), q).toBe(rest);
      const again = await compute(r, { query: rest, limit: 5 });
      expect(readingOfWarnings(again.warnings)!.text, q).toBe(restReading);
    }
    const none = await postJson(r, { query: 'xyzzy plugh' });
    expect(questionWithoutUnread(describeErrorBody(JSON.stringify(none.body), none.contentType).refusal!)).toBeNull();
  });
});
