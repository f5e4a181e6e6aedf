import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgImageryStorage } from '../../../electron/local-service/imagery/pg-store';
import { parseQuery } from '../../../electron/local-service/imagery/query';
import { embeddedImageryStorage, type ImageryStorage } from '../../../electron/local-service/imagery/storage';
import type { NewPhoto } from '../../../electron/local-service/imagery/store';
import { BACKEND, databaseFor } from './harness';

/** Search texts that test word splitting and folding: diacritics, ligatures, scripts, punctuation. */
const TEXTS = [
  'Café in São Paulo \n Øresund Straße ½ ﬁsh',
  "l'eau d’or 東京タワー",
  'tram tram Lisbon 2024 \n March 5 2024',
  'Ελληνικά Ωμέγα',
  'naïve coöperation résumé',
  'x-ray_photo 3.14 e-mail',
  'İstanbul ŞİŞLİ',
  '🚋 tram-stop',
  'ＦＵＬＬ width ｆｕｌｌ',
  '',
  'platform 1 2',
  'gate 2 to 1',
  'trams depot',
];

/** Queries as users type them; each word goes to the store folded, as the service sends it. */
const QUERIES = [
  'cafe', 'Café', 'sao paulo', 'oresund', 'Øresund', 'strasse', 'Straße', '½', 'fish', 'ﬁsh', '東京タワー', '東京',
  "l'eau", 'd’or', 'tram', 'LISBON', '2024', 'march 5', 'ελληνικα', 'ΩΜΕΓΑ', 'naive', 'cooperation', 'résumé',
  'x-ray', 'xray', 'photo', '3.14', '314', 'e-mail', 'istanbul', 'İstanbul', 'şişli', 'sisli', '🚋', 'tram-stop',
  'full', 'ＦＵＬＬ', 'width',
];

function row(i: number): Omit<NewPhoto, 'id'> {
  return {
    path: `/photos/${i}.jpg`, root: '/photos', mtime_ms: 1, size: 1, mime: 'image/jpeg', lon: i, lat: i, direction: null,
    taken_at: null, year: null, month: null, description: null, keywords: '[]', make: null, artist: null, width: null,
    height: null, interactive: 0, city: null, country: null, country_code: null, region_id: null, address: `photo ${i}`,
    is_video: 0, duration: null, dev: null, ino: null,
  };
}

describe.skipIf(BACKEND !== 'postgis')('word matching on PostgreSQL gives the embedded FTS5 answers', () => {
  let sqlite: Database.Database;
  let embedded: ImageryStorage;
  let postgis: ImageryStorage;
  let pool: pg.Pool;
  let ids = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;

  /** Paths (rowids differ between the stores) of the photos a word matches. */
  const paths = async (store: ImageryStorage, word: string) =>
    (await store.rows(await store.match(word))).map((r) => r.path).sort();

  const load = async (texts: string[], from: number) => {
    const changes = { removed: [], skipped: [], photos: texts.map((text, i) => ({ row: row(from + i), text })) };
    await embedded.apply(changes, newId);
    await postgis.apply(changes, newId);
  };

  beforeAll(async () => {
    sqlite = new Database(':memory:');
    embedded = embeddedImageryStorage(sqlite);
    pool = new pg.Pool({ connectionString: await databaseFor('imagery-matching') });
    postgis = await openPgImageryStorage({ pool });
    await load(TEXTS, 0);
  });
  afterAll(async () => {
    await postgis?.close();
    await pool?.end();
    sqlite?.close();
  });

  it('finds known words the way FTS5 does (folded case and accents; ß and ligatures kept; phrases in a row)', async () => {
    const word = (q: string) => parseQuery(q).words[0]!.folded;
    expect(await paths(postgis, word('cafe'))).toEqual(['/photos/0.jpg']);
    expect(await paths(postgis, word('strasse'))).toEqual([]);
    // "½" folds to "1⁄2", two tokens: a phrase, found where 1 and 2 stand in a row, not just both.
    expect(await paths(postgis, word('½'))).toEqual(['/photos/10.jpg']);
    expect(await paths(postgis, word('LISBON'))).toEqual(['/photos/2.jpg']);
    // Whole words, no prefixes: "tram" is not "trams".
    expect(await paths(postgis, word('tram'))).toEqual(['/photos/2.jpg', '/photos/7.jpg']);
  });

  it.each(QUERIES)('%s', async (q) => {
    for (const w of parseQuery(q).words) expect(await paths(postgis, w.folded), w.folded).toEqual(await paths(embedded, w.folded));
  });

  it('writes a scan of more photos than one statement holds, and updates them in place', async () => {
    const texts = Array.from({ length: 1234 }, (_, i) => `bulk n${i}`);
    await load(texts, 1000);
    expect((await postgis.match('bulk')).length).toBe(1234);
    expect(await paths(postgis, 'n1233')).toEqual(['/photos/2233.jpg']);
    const before = await postgis.rows(await postgis.match('n5'));
    // The same paths again with other words: rows keep their ids, the old words are gone.
    await load(texts.map((t) => t.replace('bulk', 'again')), 1000);
    expect(await postgis.match('bulk')).toEqual([]);
    expect((await postgis.match('again')).length).toBe(1234);
    expect((await postgis.rows(await postgis.match('n5'))).map((r) => r.id)).toEqual(before.map((r) => r.id));
    expect(await postgis.count()).toBe(await embedded.count());
  });

  it('matches the same photos for generated texts and words', async () => {
    // Short words of letters whose folding differs by script or form, digits and separators.
    const alphabet = [...'aAäÄeéÉiİıoØøuüßﬁ½²１ａΣσςЖж東京-.’\'_'];
    const word = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 3 }).map((c) => c.join(''));
    const text = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
    const texts = fc.sample(text, { numRuns: 80, seed: 13 });
    await load(texts, 100);
    let found = 0;
    // Queries made of the same kind of words, so that many of them match something.
    await fc.assert(
      fc.asyncProperty(text, async (q) => {
        for (const w of parseQuery(q).words) {
          const want = await paths(embedded, w.folded);
          found += want.length;
          expect(await paths(postgis, w.folded), w.folded).toEqual(want);
        }
      }),
      { numRuns: 150, seed: 7 },
    );
    expect(found).toBeGreaterThan(500);
  });
});
