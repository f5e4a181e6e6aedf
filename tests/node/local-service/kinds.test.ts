import { describe, expect, it } from 'vitest';
import { defaultCatalogDir, kindLayer, loadCatalog, pointLayer } from '../../../electron/local-service/catalog/catalog';
import type { KindEntry } from '../../../electron/local-service/catalog/kinds/entry';
import { UPLOADS } from '../../../electron/local-service/catalog/kinds/uploads';
import { BUILTIN_KINDS, buildKinds, kindCodes, UnknownKindError } from '../../../electron/local-service/catalog/kinds/registry';
import { execute, type Execution } from '../../../electron/local-service/query/execute';
import { toFeature } from '../../../electron/local-service/query/features';
import { parseQuery } from '../../../electron/local-service/query/parse';
import { packItems, unpackItems } from '../../../electron/local-service/store';
import { UploadSet } from '../../../electron/local-service/upload/set';

const catalog = loadCatalog(defaultCatalogDir());
const read = (q: string) => parseQuery(q, { catalog, coordinates: [], fileNames: [] });

/** A small valid entry over two points, varied per test. */
const entry = (over: Partial<KindEntry> = {}): KindEntry => ({
  name: 'well',
  code: 20,
  label: { one: 'well', many: 'wells' },
  nouns: [{ one: ['well'], many: ['wells'] }],
  source: { name: 'test', licence: 'CC0', url: 'https://example.org/{ref}' },
  id: { prefix: 'well:', column: 'ref' },
  columns: { lon: 'x', lat: 'y', name: 'ref', country: 'cc' },
  address: ['ref'],
  properties: [],
  ...over,
});
const columns = { ref: ['a', 'b'], x: [1, 2], y: [3, 4], cc: ['FR', 'ES'] };

describe('kinds as vocabulary entries', () => {
  it('reads every noun of every built-in entry as that kind, singular and plural', () => {
    for (const e of BUILTIN_KINDS)
      for (const n of e.nouns)
        for (const word of [...n.one, ...n.many]) {
          const plan = read(`${word} in Peru`);
          expect(plan.subject, word).toBe(e.name);
          for (const [key, value] of Object.entries(n.sets ?? {})) expect(plan[key], word).toBe(value);
        }
  });

  it('reads every modifier word of an entry as a value of that modifier', () => {
    for (const e of BUILTIN_KINDS)
      for (const m of e.modifiers ?? [])
        for (const group of m.words ?? [])
          for (const word of group.words) expect(read(`${word} ${e.nouns[0]!.many[0]}`)[m.key], word).toBe(group.value);
  });

  it('an unknown kind is an error, never uploads', async () => {
    const plan = { ...read('wells in Peru'), subject: 'well' };
    const uploads = { features: new UploadSet(), layer: pointLayer(UPLOADS.name, [], [], []) };
    await expect(execute({ plan, catalog, uploads, coordinates: [], h3Cells: [] })).rejects.toThrow(UnknownKindError);
    const ex = { items: [], radiusKm: undefined } as unknown as Execution;
    expect(() => toFeature({ k: 'well', i: 0 }, ex, catalog, new UploadSet())).toThrow('unknown kind "well"');
    expect(() => catalog.kinds.get('well')).toThrow(UnknownKindError);
    expect(() => packItems([{ k: 'well', i: 0 }])).toThrow(UnknownKindError);
  });

  it('refuses entries that clash or name missing columns, saying which kind and why', () => {
    const ok = kindLayer({ entry: entry(), columns });
    const base = catalog.kinds.list;
    expect(() => buildKinds([...base, ok, kindLayer({ entry: entry({ code: 21 }), columns })])).toThrow('kind "well" is defined twice');
    expect(() => kindCodes([...BUILTIN_KINDS, entry({ code: BUILTIN_KINDS[1]!.code })])).toThrow(
      `kind "well": storage code ${BUILTIN_KINDS[1]!.code} is already "${BUILTIN_KINDS[1]!.name}"`,
    );
    const noun = BUILTIN_KINDS[0]!.nouns[0]!.many[0]!;
    expect(() => buildKinds([...base, kindLayer({ entry: entry({ nouns: [{ one: [], many: [noun] }] }), columns })])).toThrow(
      `kind "well": the noun "${noun}" already names "${BUILTIN_KINDS[0]!.name}"`,
    );
    expect(() => kindLayer({ entry: entry({ address: ['depth'] }), columns })).toThrow('kind "well": no column "depth" in its source');
    expect(() => kindLayer({ entry: entry(), columns: { ...columns, cc: ['FR'] } })).toThrow('kind "well": column "cc" has 1 cells, not 2');
    expect(() => buildKinds([...base, kindLayer({ entry: entry({ nouns: [{ one: ['deep well'], many: [], sets: { deep: true } }] }), columns })])).toThrow(
      'kind "well": a noun sets "deep", which is no modifier of it',
    );
  });

  it('stores result sets with the storage codes of the catalog\'s entries, extra kinds included', () => {
    const extra = loadCatalog(defaultCatalogDir(), [{ entry: entry(), columns }]);
    const items = [{ k: 'well', i: 1, d: 5 }, { k: BUILTIN_KINDS[2]!.name, i: 7 }];
    const { bin, figures } = packItems(items, extra.kinds.codes);
    expect([...bin.subarray(8 + items.length * 12)]).toEqual([20, BUILTIN_KINDS[2]!.code]);
    expect(unpackItems(bin, figures, extra.kinds.codes)).toEqual(items);
    expect(extra.version).not.toBe(catalog.version);
  });
});
