/** One line of the details table: a property name and its value as text, in full. */
export interface DetailRow {
  key: string;
  value: string;
}

export interface FeatureDetails {
  /** The feature's own name (or address), in full. */
  title: string;
  /** The feature's properties (kind, country, iata, score…), nested values as JSON. */
  properties: DetailRow[];
  /** The own columns of the file or data layer the feature comes from (`properties.attributes`), in their order. */
  attributes: DetailRow[];
  /** Where those columns come from: "the data layer “…”", "the uploaded file “…”", or the source's name. */
  attributesFrom: string;
}

/** Where a feature's own columns come from, by its source (`layer:<id>` a data layer, `upload:<file>` a file). */
function attributesFrom(source: unknown): string {
  const s = source && typeof source === 'object' ? (source as { name?: unknown; url?: unknown }) : {};
  const name = typeof s.name === 'string' && s.name.trim() ? s.name.trim() : '';
  const url = typeof s.url === 'string' ? s.url : '';
  if (url.startsWith('layer:')) return name ? `the data layer “${name}”` : 'a data layer';
  if (url.startsWith('upload:')) return name ? `the uploaded file “${name}”` : 'an uploaded file';
  return name ? `the source “${name}”` : 'the source';
}

const text = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
};

/** Properties shown elsewhere (the title) or only meaningful to the map. */
const TITLE_KEYS = ['name', 'address', 'feature_name'] as const;

/** What the details panel lists for a feature's properties, whatever operation it came from. */
export function featureDetails(props: Record<string, unknown>): FeatureDetails {
  const titleKey = TITLE_KEYS.find((k) => typeof props[k] === 'string' && (props[k] as string).trim());
  const attrs = props['attributes'];
  const attributes =
    attrs && typeof attrs === 'object' && !Array.isArray(attrs)
      ? Object.entries(attrs as Record<string, unknown>).map(([key, v]) => ({ key, value: text(v) }))
      : [];
  const properties = Object.entries(props)
    .filter(([k, v]) => k !== titleKey && k !== 'attributes' && v !== null && v !== undefined && v !== '')
    .map(([key, v]) => ({ key, value: key === 'source' && v && typeof v === 'object' ? text((v as { name?: unknown }).name ?? v) : text(v) }));
  return { title: titleKey ? (props[titleKey] as string) : '', properties, attributes, attributesFrom: attributesFrom(props['source']) };
}
