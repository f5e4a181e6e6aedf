/**
 * The small file that once ended the browser host: a GeoJSON Feature whose `properties` nest an
 * array `depth` levels deep (about 10 KB at 5,000 levels).
 */
export function deepPropertiesGeoJson(depth = 5000): string {
  return (
    '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"name":"deep","nested":' +
    '['.repeat(depth) +
    ']'.repeat(depth) +
    '}}]}'
  );
}

/** A value nested `depth` levels deep, built in a loop (a literal or recursion could not make it). */
export function deepValue(depth: number): unknown[] {
  const root: unknown[] = [];
  let at = root;
  for (let i = 1; i < depth; i++) {
    const next: unknown[] = [];
    at.push(next);
    at = next;
  }
  return root;
}
