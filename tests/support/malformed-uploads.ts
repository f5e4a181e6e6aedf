import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A corpus of broken uploads, written to a folder, each with what the service must make of it.
 * The expectations come from how each file was made (which lines were spoiled and how), not
 * from the readers: `rows` good rows must come back, every line in `badLines` must be flagged,
 * and a refused file must be named (with the line, where one line is to blame).
 */
export type Expect =
  | {
      kind: 'answered';
      rows: number;
      badLines?: number[];
      warning?: string;
      /** A column every returned feature keeps among its attributes, its values matching `like` (source of a RegExp). */
      attribute?: { name: string; like: string };
      /** Every returned feature's name matches this (source of a RegExp): the name column was found. */
      names?: string;
    }
  | {
      kind: 'refused';
      code: string;
      line?: number;
      /** Words the detail must hold, and words it must not. */
      says?: string;
      never?: string;
    }
  | { kind: 'too_large' }
  // Garbage whose reading is not pinned down: any clear outcome will do (answered or refused by name).
  | { kind: 'any' };

export interface CorpusFile {
  name: string;
  /** The file name sent, when it is not `name` (one a file system cannot hold, such as a NUL). */
  sentAs?: string;
  /** How the service must show the sent name in its messages. */
  shownAs?: string;
  path: string;
  bytes: number;
  family: string;
  expect: Expect;
}

/** Small seeded generator: the corpus is the same on every run. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const ROWS = 12;
/** Sites on land in Europe (lat, lon), so no swapped-coordinates warning muddies the answer. */
const site = (i: number): [number, number] => [+(44 + (i % 9) * 0.7).toFixed(4), +(2 + (i % 11) * 0.9).toFixed(4)];
const csvRows = (n: number, d = ',', name = (i: number) => `Site ${i}`) =>
  Array.from({ length: n }, (_, i) => [name(i), ...site(i)].join(d));
const featureOf = (i: number) => ({ type: 'Feature', properties: { name: `Site ${i}` }, geometry: { type: 'Point', coordinates: [site(i)[1], site(i)[0]] } });
/** A FeatureCollection with one feature per line (line k + 2 holds feature k), so lines are known. */
const collection = (features: unknown[]) => `{"type":"FeatureCollection","features":[\n${features.map((f) => JSON.stringify(f)).join(',\n')}\n]}\n`;

export interface CorpusOptions {
  /** Size of the large file that must still be read (MB); well under the 20 MiB upload limit. */
  largeMb?: number;
  /** Sizes of files past the upload limit (MB): refused by name, memory bounded. */
  oversizeMb?: number[];
}

export function writeMalformedCorpus(dir: string, opts: CorpusOptions = {}): CorpusFile[] {
  mkdirSync(dir, { recursive: true });
  const out: CorpusFile[] = [];
  const add = (family: string, name: string, content: string | Buffer, expect: Expect) => {
    const path = join(dir, `${String(out.length).padStart(3, '0')}-${name}`);
    writeFileSync(path, content);
    out.push({ name: path.split('/').pop()!, path, bytes: Buffer.byteLength(content), family, expect });
  };
  const header = (d: string) => ['name', 'lat', 'lon'].join(d);

  // Delimiters and line endings: all read whole.
  for (const d of [',', ';', '\t', '|'])
    for (const eol of ['\n', '\r\n'])
      add('delimiter', `delim-${d === '\t' ? 'tab' : d === '|' ? 'pipe' : d === ';' ? 'semicolon' : 'comma'}-${eol.length}.csv`, [header(d), ...csvRows(ROWS, d)].join(eol) + eol, { kind: 'answered', rows: ROWS });
  // A header in one delimiter and rows in another: no column is found.
  add('delimiter', 'delim-mixed.csv', [header(','), ...csvRows(ROWS, ';')].join('\n'), { kind: 'any' });

  // Byte order marks and encodings.
  const plain = [header(','), ...csvRows(ROWS, ',', (i) => `Café ${i}`)].join('\n') + '\n';
  add('encoding', 'bom-utf8.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(plain)]), { kind: 'answered', rows: ROWS });
  add('encoding', 'bom-utf8.geojson', '\ufeff' + collection([0, 1, 2].map(featureOf)), { kind: 'answered', rows: 3 });
  add('encoding', 'bom-utf16le.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plain, 'utf16le')]), { kind: 'answered', rows: ROWS, warning: 'encoding' });
  add('encoding', 'bom-utf16be.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(plain, 'utf16le').swap16()]), { kind: 'answered', rows: ROWS, warning: 'encoding' });
  add('encoding', 'utf16le-no-bom.csv', Buffer.from(plain, 'utf16le'), { kind: 'answered', rows: ROWS, warning: 'encoding' });
  add('encoding', 'latin1.csv', Buffer.from(plain, 'latin1'), { kind: 'answered', rows: ROWS, warning: 'encoding' });
  // UTF-8 and Latin-1 rows in one file (a spreadsheet pasted into another): not valid UTF-8 as a whole.
  const mixed = Buffer.concat([Buffer.from([header(','), ...csvRows(6, ',', (i) => `Zürich ${i}`)].join('\n') + '\n'), Buffer.from(csvRows(6, ',', (i) => `Zürich ${i + 6}`).join('\n') + '\n', 'latin1')]);
  add('encoding', 'mixed-utf8-latin1.csv', mixed, { kind: 'answered', rows: 12, warning: 'encoding' });
  add('encoding', 'shift-jis-like.csv', Buffer.concat([Buffer.from(header(',') + '\n'), ...csvRows(ROWS).map((r) => Buffer.concat([Buffer.from([0x93, 0x8c, 0x8b, 0x9e]), Buffer.from(r + '\n')]))]), { kind: 'answered', rows: ROWS, warning: 'encoding' });

  // One spoiled value per file, on a known line (line 1 is the header, row k is on line k + 2).
  const spoilers: [string, (lat: number, lon: number) => [string, string]][] = [
    ['lat-empty', (_, lon) => ['', String(lon)]],
    ['lon-empty', (lat) => [String(lat), '']],
    ['both-blank', () => ['  ', ' ']],
    ['lat-word', (_, lon) => ['north', String(lon)]],
    ['lon-degrees', (lat) => [String(lat), '12°E']],
    ['lat-nan', (_, lon) => ['NaN', String(lon)]],
    ['lat-infinity', (_, lon) => ['Infinity', String(lon)]],
    ['lat-overflow', (_, lon) => ['1e999', String(lon)]],
    // Number() reads these as 16, 1 and 8: a table cell holding them is not a coordinate.
    ['lat-hex', (_, lon) => ['0x10', String(lon)]],
    ['lon-binary', (lat) => [String(lat), '0b1']],
    ['lon-octal', (lat) => [String(lat), '0o10']],
    ['lat-91', (_, lon) => ['91', String(lon)]],
    ['lat-minus-90.0001', (_, lon) => ['-90.0001', String(lon)]],
    ['lon-180.5', (lat) => [String(lat), '180.5']],
    ['lon-minus-181', (lat) => [String(lat), '-181']],
    ['lat-million', (_, lon) => ['1000000', String(lon)]],
  ];
  for (const [label, spoil] of spoilers)
    for (const k of [0, 7]) {
      const rows = csvRows(ROWS).map((r, i) => (i === k ? [`Site ${i}`, ...spoil(...site(i))].join(',') : r));
      add('coordinates', `${label}-row${k + 1}.csv`, [header(','), ...rows].join('\n') + '\n', { kind: 'answered', rows: ROWS - 1, badLines: [k + 2] });
    }
  for (const k of [2, 9]) {
    const rows = csvRows(ROWS).map((r, i) => (i === k ? `Site ${i},${site(i)[0]}` : r));
    add('coordinates', `missing-field-row${k + 1}.csv`, [header(','), ...rows].join('\n') + '\n', { kind: 'answered', rows: ROWS - 1, badLines: [k + 2] });
  }
  add('coordinates', 'all-words.csv', [header(','), ...csvRows(ROWS).map((_, i) => `Site ${i},north,east`)].join('\n'), { kind: 'refused', code: 'no_usable_rows' });
  // Every row in Web Mercator metres: named as a projection, not as bad rows.
  add('coordinates', 'all-mercator-metres.csv', [header(','), ...csvRows(ROWS).map((_, i) => `Site ${i},${6_000_000 + i * 1000},${250_000 + i * 1000}`)].join('\n'), { kind: 'refused', code: 'crs' });

  // Headers.
  add('header', 'no-coordinate-columns.csv', 'name,city\nA,Paris\nB,Lyon\n', { kind: 'refused', code: 'no_coordinate_columns', line: 1 });
  add('header', 'header-only.csv', 'name,lat,lon\n', { kind: 'refused', code: 'header_only' });
  add('header', 'empty.csv', '', { kind: 'refused', code: 'empty' });
  add('header', 'blank-lines.csv', '\n\n  \n\t\n', { kind: 'refused', code: 'empty' });
  add('header', 'only-bom.csv', Buffer.from([0xef, 0xbb, 0xbf]), { kind: 'refused', code: 'empty' });
  add('header', 'empty.geojson', '', { kind: 'refused', code: 'invalid_json' });
  add('header', 'duplicate-header.csv', ['name,lat,lon,lat', ...csvRows(ROWS).map((r) => r + ',0')].join('\n'), { kind: 'answered', rows: ROWS, warning: 'duplicate_header' });

  // Huge lines.
  add('huge-line', 'huge-name.csv', [header(','), ...csvRows(ROWS).map((r, i) => (i === 3 ? 'N'.repeat(2_000_000) + r.slice(r.indexOf(',')) : r))].join('\n'), { kind: 'answered', rows: ROWS, warning: 'truncated_values' });
  add('huge-line', 'huge-row-of-fields.csv', [header(','), ...csvRows(ROWS).map((r, i) => (i === 5 ? r + ',x'.repeat(100_000) : r))].join('\n'), { kind: 'answered', rows: ROWS - 1, badLines: [7] });
  // One line and no line break: a header without rows.
  add('huge-line', 'one-huge-line.csv', 'x'.repeat(5_000_000), { kind: 'refused', code: 'header_only' });
  add('huge-line', 'unterminated-quote.csv', [header(','), ...csvRows(ROWS).map((r, i) => (i === 8 ? `"Site ${i},${site(i).join(',')}` : r))].join('\n'), { kind: 'answered', rows: 8, badLines: [10] });

  // GeoJSON of the wrong shape.
  for (const [label, features] of [['object', {}], ['string', '"all of them"'], ['null', null]] as const)
    add('geojson-type', `features-${label}.geojson`, `{"type":"FeatureCollection","features":${typeof features === 'string' ? features : JSON.stringify(features)}}`, { kind: 'refused', code: 'features_not_array', line: 1 });
  for (const [label, text] of [['number', '42'], ['array', '[1,2,3]'], ['string', '"FeatureCollection"'], ['type-number', '{"type":5}'], ['no-type', '{"features":[]}']] as const)
    add('geojson-type', `not-geojson-${label}.geojson`, text, { kind: 'refused', code: 'not_geojson', line: 1 });
  const badFeatures: [string, unknown][] = [
    ['feature-number', 1],
    ['feature-null', null],
    ['feature-string', 'Feature'],
    ['feature-array', [featureOf(0)]],
    ['feature-is-geometry', { type: 'Point', coordinates: [2, 48] }],
    ['coordinates-text', { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: ['2.35', '48.85'] } }],
    ['latitude-900', { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [2.35, 900] } }],
    ['geometry-type-unknown', { type: 'Feature', properties: {}, geometry: { type: 'Pointy', coordinates: [2, 48] } }],
    ['coordinates-nested-wrong', { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: [2, 48] } }],
    ['geometry-string', { type: 'Feature', properties: {}, geometry: 'POINT (2 48)' }],
  ];
  for (const [label, bad] of badFeatures)
    for (const k of [0, 4]) {
      const features: unknown[] = Array.from({ length: 6 }, (_, i) => featureOf(i));
      features[k] = bad;
      add('geojson-feature', `${label}-at${k + 1}.geojson`, collection(features), { kind: 'answered', rows: 5, badLines: [k + 2] });
    }

  // Unclosed and otherwise invalid JSON, with the line the parser stops on.
  const good = collection(Array.from({ length: 6 }, (_, i) => featureOf(i)));
  const lines = good.split('\n');
  for (const keep of [1, 3, 5]) {
    const text = lines.slice(0, keep + 1).join('\n').replace(/,$/, '');
    add('json', `unclosed-after-${keep}-features.geojson`, text, { kind: 'refused', code: 'invalid_json', line: keep + 1 });
  }
  add('json', 'unclosed-string.geojson', good.slice(0, good.indexOf('Site 3') + 4), { kind: 'refused', code: 'invalid_json', line: 5 });
  const defect = (label: string, line: number, f: (l: string) => string) =>
    add('json', `${label}.geojson`, lines.map((l, i) => (i === line - 1 ? f(l) : l)).join('\n'), { kind: 'refused', code: 'invalid_json', line });
  // A comma after the last feature: the parser stops at the bracket on the next line.
  add('json', 'trailing-comma.geojson', lines.map((l, i) => (i === 6 ? l + ',' : l)).join('\n'), { kind: 'refused', code: 'invalid_json', line: 8 });
  defect('comment', 4, (l) => l + ' // the third site');
  defect('nan-literal', 5, (l) => l.replace(/\[[-\d.]+,/, '[NaN,'));
  defect('single-quotes', 3, (l) => l.replace(/"name"/, "'name'"));
  // Valid JSON nested 200,000 deep, but no GeoJSON; and the same depth left open: refused before parsing.
  add('json', 'deep-nesting.geojson', '['.repeat(200_000) + ']'.repeat(200_000), { kind: 'refused', code: 'too_deep', says: 'more than 100 levels' });
  add('json', 'deep-nesting-unclosed.geojson', '{"type":"FeatureCollection","features":' + '['.repeat(200_000), { kind: 'refused', code: 'too_deep', says: 'more than 100 levels' });
  // A valid Feature whose properties nest an array 5,000 levels deep (10 KB): it once ended the browser host.
  const deepProps = (d: number) => `{"type":"FeatureCollection","features":[\n{"type":"Feature","properties":{"name":"Site 0","nested":${'['.repeat(d)}${']'.repeat(d)}},"geometry":{"type":"Point","coordinates":[${site(0)[1]},${site(0)[0]}]}}\n]}\n`;
  add('json', 'deep-properties-5000.geojson', deepProps(5000), { kind: 'refused', code: 'too_deep', says: 'more than 100 levels' });
  add('json', 'deep-properties-60.geojson', deepProps(60), { kind: 'answered', rows: 1 });
  add('json', 'null-geometries.geojson', collection([featureOf(0), { type: 'Feature', properties: {}, geometry: null }, featureOf(2)]), { kind: 'answered', rows: 2, warning: 'null_geometry' });

  // Long lines and large polygons: positions as short integers so two million fit under the upload limit.
  const ring = (n: number, close: boolean) => {
    const parts = new Array<string>(n);
    for (let i = 0; i < n; i++) parts[i] = `[${2 + (i % 7)},${44 + (i % 5)}]`;
    if (close) parts[n - 1] = parts[0]!;
    return parts.join(',');
  };
  // Line 2 holds a point, line 3 the large geometry.
  const big = (type: 'LineString' | 'Polygon', n: number) =>
    `{"type":"FeatureCollection","features":[\n${JSON.stringify(featureOf(0))},\n` +
    `{"type":"Feature","properties":{"name":"Site 1"},"geometry":{"type":"${type}","coordinates":${type === 'Polygon' ? `[[${ring(n, true)}]]` : `[${ring(n, false)}]`}}}\n]}\n`;
  add('huge-geometry', 'line-200000-vertices.geojson', big('LineString', 200_000), { kind: 'answered', rows: 2 });
  add('huge-geometry', 'polygon-200000-vertices.geojson', big('Polygon', 200_000), { kind: 'answered', rows: 2 });
  add('huge-geometry', 'polygon-2000000-vertices.geojson', big('Polygon', 2_000_000), { kind: 'refused', code: 'too_many_vertices', line: 3, says: 'feature 2: its geometry has more than 1,000,000 vertices' });
  const wkt = Array.from({ length: 200_000 }, (_, i) => `${2 + (i % 7)} ${44 + (i % 5)}`).join(', ');
  // WKT in a table is parsed in time that grows faster than its length: past 10,000 vertices the row is left out, named.
  add('huge-geometry', 'wkt-line-200000-vertices.csv', `name,wkt\nSite 0,"POINT (${site(0)[1]} ${site(0)[0]})"\nSite 1,"LINESTRING (${wkt})"\n`, { kind: 'answered', rows: 1, badLines: [3] });

  // Values and names that once misled.
  const formulas = ['=HYPERLINK("http://example.invalid","x")', '+1+1', '-2+3', '@SUM(1)', '\t=1', '\r=1'];
  const formulaRows = csvRows(ROWS).map((r, i) => `${r},"${formulas[i % 6]!.replace(/"/g, '""')}"`);
  add('formula', 'formula-cells.csv', [header(',') + ',note', ...formulaRows].join('\n') + '\n', { kind: 'answered', rows: ROWS, attribute: { name: 'note', like: '^(=HYPERLINK\\(|\\+1\\+1$|-2\\+3$|@SUM|\\t=1$|\\r=1$)' } });
  add('proto', 'proto-column.csv', ['name,lat,lon,__proto__', ...csvRows(ROWS).map((r, i) => `${r},p${i}`)].join('\n') + '\n', { kind: 'answered', rows: ROWS, attribute: { name: '__proto__', like: '^p\\d+$' }, warning: 'reserved_name' });
  add('proto', 'proto-property.geojson', collection([0, 1, 2].map((i) => ({ ...featureOf(i), properties: JSON.parse(`{"name":"Site ${i}","__proto__":"p${i}"}`) as object }))), { kind: 'answered', rows: 3, attribute: { name: '__proto__', like: '^p\\d+$' }, warning: 'reserved_name' });
  // JSON.stringify cannot write 1e400: the placeholder is replaced in the text.
  const overflow = collection([0, 1, 2].map((i) => ({ type: 'Feature', properties: { name: `Site ${i}` }, geometry: { type: 'Point', coordinates: ['@', '@'] } })));
  add('coordinates', 'overflow-1e400.geojson', overflow.replace(/"@"/g, '1e400'), { kind: 'refused', code: 'no_usable_rows', says: 'not finite', never: 'projected' });
  add('html', 'page.csv', '<!DOCTYPE html>\n<html lang="en"><head><title>Sign in</title></head>\n<body><form>name,lat,lon</form></body></html>\n', { kind: 'refused', code: 'not_csv', line: 1 });
  add('html', 'page-no-doctype.csv', '<html>\n<body><table><tr><td>name</td><td>lat</td></tr></table></body>\n</html>\n', { kind: 'refused', code: 'not_csv', line: 1 });
  const nul = 'name,lat,lon\n';
  add('name', 'nul-in-name.csv', nul, { kind: 'refused', code: 'header_only' });
  Object.assign(out[out.length - 1]!, { sentAs: 'sites\u0000.csv', shownAs: 'sites?.csv' });
  add('name', 'escape-in-name.csv', nul, { kind: 'refused', code: 'header_only' });
  Object.assign(out[out.length - 1]!, { sentAs: 'sites\u001b[2J\t.csv', shownAs: 'sites?[2J?.csv' });
  for (const h of ['Nom', 'Nombre', 'Naam'])
    add('header', `name-header-${h.toLowerCase()}.csv`, [`${h};lat;lon`, ...csvRows(ROWS, ';')].join('\n') + '\n', { kind: 'answered', rows: ROWS, names: '^Site \\d+$' });

  // Binary files sent by mistake.
  const binary: [string, number[]][] = [
    ['zip', [0x50, 0x4b, 0x03, 0x04]], ['pdf', [0x25, 0x50, 0x44, 0x46]], ['png', [0x89, 0x50, 0x4e, 0x47]],
    ['sqlite', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]], ['gzip', [0x1f, 0x8b]], ['jpeg', [0xff, 0xd8, 0xff]],
  ];
  const next = rng(11);
  for (const [label, sig] of binary)
    add('binary', `sites-${label}.csv`, Buffer.from([...sig, ...Array.from({ length: 4000 }, () => Math.floor(next() * 256))]), { kind: 'refused', code: 'binary' });
  // Seeded garbage text: no promise about what it means, only that it is answered clearly.
  for (let g = 0; g < 5; g++) {
    const text = Array.from({ length: 200 }, () => Array.from({ length: 1 + Math.floor(next() * 8) }, () => String.fromCharCode(32 + Math.floor(next() * 95))).join(next() < 0.3 ? ',' : ';')).join('\n');
    add('garbage', `garbage-${g}.${g % 2 ? 'csv' : 'txt'}`, text, { kind: 'any' });
  }

  // A large file that is still read: rows spoiled every 9,973 lines are flagged, the rest kept.
  if (opts.largeMb) {
    const path = join(dir, `${String(out.length).padStart(3, '0')}-large.csv`);
    const fd = openSync(path, 'w');
    let bytes = writeSync(fd, 'name,lat,lon,note\n');
    let rows = 0;
    const bad: number[] = [];
    for (let i = 0; bytes < opts.largeMb * 1e6; i++) {
      const line = i + 2;
      const spoilt = line % 9973 === 0;
      if (spoilt) bad.push(line);
      else rows++;
      bytes += writeSync(fd, spoilt ? `Row ${i},north,2,x\n` : `Row ${i},${site(i).join(',')},note ${i}\n`);
    }
    closeSync(fd);
    out.push({ name: path.split('/').pop()!, path, bytes, family: 'large', expect: { kind: 'answered', rows, badLines: bad } });
  }
  // Files past the upload limit: written a megabyte at a time, never held in memory whole.
  for (const mb of opts.oversizeMb ?? []) {
    const path = join(dir, `${String(out.length).padStart(3, '0')}-oversize-${mb}mb.csv`);
    const fd = openSync(path, 'w');
    const row = 'Site,45.1234,7.1234\n';
    const block = Buffer.from(row.repeat(Math.ceil(1e6 / row.length)));
    writeSync(fd, 'name,lat,lon\n');
    for (let m = 0; m < mb; m++) writeSync(fd, block);
    closeSync(fd);
    out.push({ name: path.split('/').pop()!, path, bytes: mb * block.length, family: 'oversize', expect: { kind: 'too_large' } });
  }
  return out;
}
