/**
 * Each mutation: a file, an exact text to find, what to put instead, how many times the text
 * must occur there (all are replaced), and the test files expected to fail once it is applied.
 * Retarget one by editing its `find` when the code moves; a `find` that no longer matches stops
 * the run.
 */
export const MUTATIONS = [
  {
    id: 'within-sqlite-layer-store',
    what: 'the embedded layer store keeps features strictly inside the radius',
    file: 'electron/local-service/layers/store/sqlite-layer-store.ts',
    find: '.filter((c) => c.d <= metres)',
    replace: '.filter((c) => c.d < metres)',
    count: 1,
    tests: ['tests/node/layers/within-boundary.test.ts'],
  },
  {
    id: 'within-execute-layers',
    what: 'layer questions keep features strictly inside the radius',
    file: 'electron/local-service/query/layers/execute-layers.ts',
    find: 'if (!(d <= radiusM!)) continue;',
    replace: 'if (!(d < radiusM!)) continue;',
    count: 1,
    tests: ['tests/contract/local-service/within-boundary.test.ts'],
  },
  {
    id: 'within-ref-index',
    what: 'the reference index answers Infinity at exactly the radius',
    file: 'electron/local-service/query/layers/ref-index.ts',
    find: 'return d <= metres ? d : Infinity;',
    replace: 'return d < metres ? d : Infinity;',
    count: 2,
    tests: ['tests/contract/local-service/within-boundary.test.ts', 'tests/node/local-service/ref-index.test.ts'],
  },
  {
    id: 'within-catalog-execute',
    what: 'catalog and upload questions keep items strictly inside the radius',
    file: 'electron/local-service/query/execute.ts',
    find: 'if (!(km <= within.radiusKm)) continue;',
    replace: 'if (!(km < within.radiusKm)) continue;',
    count: 1,
    tests: ['tests/contract/local-service/within-boundary.test.ts'],
  },
  {
    id: 'gpkg-drops-last-feature',
    what: 'the GeoPackage writer leaves out the last feature of a layer',
    file: 'electron/export/gpkg.ts',
    find: 'FROM temp.stage ORDER BY fid`);',
    replace: 'FROM temp.stage WHERE fid < ${fid} ORDER BY fid`);',
    count: 1,
    tests: ['tests/node/export/gpkg-rows.test.ts'],
  },
  {
    id: 'csv-latitude-90',
    what: 'CSV uploads refuse latitude ±90',
    file: 'electron/local-service/upload/csv.ts',
    find: 'if (Math.abs(lat) > 90 || Math.abs(lon) > 180) {',
    replace: 'if (Math.abs(lat) >= 90 || Math.abs(lon) > 180) {',
    count: 1,
    tests: ['tests/node/local-service/coordinate-range.test.ts'],
  },
  {
    id: 'csv-longitude-minus-180',
    what: 'CSV uploads refuse longitude -180',
    file: 'electron/local-service/upload/csv.ts',
    find: 'if (Math.abs(lat) > 90 || Math.abs(lon) > 180) {',
    replace: 'if (Math.abs(lat) > 90 || lon <= -180 || lon > 180) {',
    count: 1,
    tests: ['tests/node/local-service/coordinate-range.test.ts'],
  },
];
