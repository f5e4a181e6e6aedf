/**
 * GDAL's OSM driver keeps the tags it has no column for in one text column, `other_tags`, in
 * hstore form: `"amenity"=>"cafe","opening_hours"=>"Mo-Fr 08:00-18:00"`, with `\"` and `\\`
 * escapes. Read back as tags, a GeoPackage or Shapefile converted by ogr2ogr answers like the
 * extract it came from.
 */

const PAIR = /"((?:[^"\\]|\\.)*)"=>"((?:[^"\\]|\\.)*)"(,|$)/y;
const unescape = (s: string) => s.replace(/\\(.)/g, '$1');

/**
 * The tags of an `other_tags` text, or null when the text is not in that form. A text cut short
 * (a Shapefile keeps 254 characters) gives the pairs before the cut.
 */
export function parseOtherTags(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  PAIR.lastIndex = 0;
  let n = 0;
  for (let m = PAIR.exec(text); m; m = PAIR.exec(text)) {
    out[unescape(m[1]!)] = unescape(m[2]!);
    n++;
    if (m[3] === '') return out;
  }
  return n ? out : null;
}

/** A feature's columns with `other_tags` unpacked into tags; a column of the same name keeps its value. */
export function unpackOtherTags(properties: Record<string, unknown>): Record<string, unknown> {
  const packed = properties['other_tags'];
  if (typeof packed !== 'string') return properties;
  const tags = parseOtherTags(packed);
  if (!tags) return properties;
  const out: Record<string, unknown> = {};
  for (const k in properties) if (k !== 'other_tags') out[k] = properties[k];
  for (const k in tags) if (out[k] === undefined || out[k] === null) out[k] = tags[k];
  return out;
}

/** GPX extension fields GDAL wrote carry its `ogr_` prefix (`ogr_amenity`): read as the tag itself. */
export function unprefixGpxTags(properties: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const k in properties) {
    if (!k.startsWith('ogr_') || k.length === 4) continue;
    const tag = k.slice(4);
    if (properties[tag] !== undefined) continue;
    out ??= { ...properties };
    out[tag] = out[k];
    delete out[k];
  }
  return out ?? properties;
}
