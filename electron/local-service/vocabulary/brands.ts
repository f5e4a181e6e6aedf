import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { phraseKey } from './phrases';

/** A brand of the name-suggestion-index: the names it goes by and its Wikidata id. */
export interface Brand {
  wikidata: string;
  label: string;
  keys: string[];
}

interface NsiItem {
  displayName?: string;
  matchNames?: string[];
  tags?: Record<string, string>;
}

/**
 * Brands of name-suggestion-index (brands/* categories), each with every name it is written by:
 * display name, brand, brand:en, name:en, official name and its match names. Read once when a
 * layer first carries `brand:wikidata` (the file is 13 MB).
 */
export function loadBrands(): Map<string, Brand> {
  const require = createRequire(import.meta.url);
  // The package exports only its code; the data sits beside it in dist/json.
  const file = join(dirname(require.resolve('name-suggestion-index')), '..', 'json', 'nsi.min.json');
  const nsi = (JSON.parse(readFileSync(file, 'utf8')) as { nsi: Record<string, { items: NsiItem[] }> }).nsi;
  const out = new Map<string, Brand>();
  for (const [path, { items }] of Object.entries(nsi)) {
    if (!path.startsWith('brands/')) continue;
    for (const it of items) {
      const t = it.tags ?? {};
      const q = t['brand:wikidata'];
      if (!q) continue;
      const b = out.get(q) ?? { wikidata: q, label: t['brand:en'] ?? t['brand'] ?? it.displayName ?? q, keys: [] };
      for (const n of [it.displayName, t['brand'], t['brand:en'], t['name:en'], t['official_name'], ...(it.matchNames ?? [])]) {
        const k = n ? phraseKey(n) : '';
        if (k && !b.keys.includes(k)) b.keys.push(k);
      }
      out.set(q, b);
    }
  }
  return out;
}
