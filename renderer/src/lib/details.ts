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
  /** The uploaded file's own columns (`properties.attributes`), in their order. */
  attributes: DetailRow[];
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
  return { title: titleKey ? (props[titleKey] as string) : '', properties, attributes };
}
