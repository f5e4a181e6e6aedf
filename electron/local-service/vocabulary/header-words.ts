import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * What a column of a name is called in every language iD is translated into: the label of its
 * `name` field ("Nom", "Nombre", "Naam", "名称"...), lower-cased. Read from the translations of
 * @openstreetmap/id-tagging-schema (about 0.3 s), so it is loaded once by whoever reads uploads.
 */
export function loadNameHeaders(): Set<string> {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('@openstreetmap/id-tagging-schema/package.json')), 'dist', 'translations');
  const out = new Set<string>();
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.min.json')) continue;
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, { presets?: { fields?: { name?: { label?: unknown } } } }>;
    for (const lang of Object.values(doc)) {
      const label = lang.presets?.fields?.name?.label;
      if (typeof label === 'string' && label.trim()) out.add(label.trim().toLowerCase().replace(/[\s-]+/g, '_'));
    }
  }
  return out;
}
