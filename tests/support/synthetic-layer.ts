import { closeSync, openSync, writeSync } from 'node:fs';
import type { LayerFeature } from '../../electron/local-service/layers/types';
import type { EmbeddedLayerStore, LayerInfo } from '../../electron/local-service/layers/store/layer-store';

/** Where the generated features lie: a box around Paris, [west, south, east, north]. */
export const SYNTHETIC_BOX = [2, 48.5, 3.5, 49.5] as const;

/** n features around Paris (seeded): 90 % points, 10 % two-segment lines; a third pharmacies, the rest cafes. */
export function* syntheticFeatures(n: number): Generator<LayerFeature> {
  let s = 99;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  for (let i = 0; i < n; i++) {
    const lon = 2 + rand() * 1.5;
    const lat = 48.5 + rand() * 1;
    const geometry: LayerFeature['geometry'] =
      i % 10 === 0 ? { type: 'LineString', coordinates: [[lon, lat], [lon + 0.001, lat + 0.0005], [lon + 0.002, lat]] } : { type: 'Point', coordinates: [lon, lat] };
    yield { sourceId: String(i + 1), geometry, properties: { amenity: i % 3 ? 'cafe' : 'pharmacy', name: `F ${i + 1}` } };
  }
}

/** Writes n synthetic features straight into one layer of an embedded store, 10,000 at a time. */
export function writeSyntheticLayer(store: EmbeddedLayerStore, n: number, name = 'million'): LayerInfo {
  const writer = store.create({ name, sourceFile: 'synthetic', format: 'geojson', licence: null, sourceText: 'synthetic' });
  let batch: LayerFeature[] = [];
  for (const f of syntheticFeatures(n)) {
    batch.push(f);
    if (batch.length === 10_000) {
      writer.add(batch);
      batch = [];
    }
  }
  writer.add(batch);
  return writer.commit([]);
}

/** The same n features as a GeoJSON FeatureCollection file (each feature's `id` its sourceId), written in chunks. */
export function writeSyntheticGeoJson(file: string, n: number): void {
  const fd = openSync(file, 'w');
  try {
    let buf = '{"type":"FeatureCollection","features":[\n';
    let first = true;
    for (const f of syntheticFeatures(n)) {
      buf += (first ? '' : ',\n') + JSON.stringify({ type: 'Feature', id: f.sourceId, geometry: f.geometry, properties: f.properties });
      first = false;
      if (buf.length >= 1 << 20) {
        writeSync(fd, buf);
        buf = '';
      }
    }
    writeSync(fd, buf + ']}\n');
  } finally {
    closeSync(fd);
  }
}
