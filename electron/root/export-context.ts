import type { Geometry } from 'geojson';
import { DATA_LAYER_COLOUR, OVERLAY_COLOURS } from '../../shared/map/colours';
import type { Cache } from '../cache';
import type { ContextLayers, LoadLayers } from '../export/service';
import type { ExportLayer } from '../export/types';
import { readArea, type Box } from '../fieldkit/pack/area';
import type { PackLayers } from '../fieldkit/pack/layers-port';
import { clip } from '../fieldkit/pack/select';
import type { Logger } from '../ground/logger';
import { createSlicer, readUpload, UploadReport } from '../local-service/uploads';

// A box around a single point still has an area to ask the layers about (about 100 m).
const MIN_SPAN = 0.001;

/**
 * What a QGIS project holds beside the chosen entries: the files they were asked with (one
 * layer each) and the data layers' features within the entries' extent, clipped to it.
 */
export function exportContextLayers(cache: Cache, layers: () => PackLayers | null, logger: Logger): ContextLayers {
  return async (queryIds) => {
    const out: ExportLayer[] = [];
    const seen = new Set<string>();
    const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
    for (const idText of queryIds) {
      const id = Number(idText);
      const rows = Number.isInteger(id) ? cache.queryRows(id) : null;
      const b = Number.isInteger(id) ? cache.get(id)?.bbox : null;
      if (b) {
        box[0] = Math.min(box[0], b[0]);
        box[1] = Math.min(box[1], b[1]);
        box[2] = Math.max(box[2], b[2]);
        box[3] = Math.max(box[3], b[3]);
      }
      for (const u of rows?.uploads ?? []) {
        if (u.field !== 'files' || seen.has(u.sha256)) continue;
        seen.add(u.sha256);
        try {
          const features = await readUpload(u.name, u.content, { countryAt: () => '', report: new UploadReport(), slice: createSlicer() });
          out.push({
            kind: 'compute',
            name: u.name,
            role: 'upload',
            colour: OVERLAY_COLOURS.uploads,
            count: features.length,
            features: features.map((f) => ({
              type: 'Feature' as const,
              id: f.id,
              geometry: f.geometry as never,
              properties: { name: f.name, address: f.address, attributes: f.attributes },
            })) as never[],
          });
        } catch (e) {
          // The answer still exports; the log says which file could not be read again.
          logger.warn(`Upload ${u.name} left out of the project`, e);
        }
      }
    }
    const store = layers();
    if (!store || box[0] === Infinity) return out;
    if (box[2] - box[0] < MIN_SPAN) [box[0], box[2]] = [box[0] - MIN_SPAN / 2, box[2] + MIN_SPAN / 2];
    if (box[3] - box[1] < MIN_SPAN) [box[1], box[3]] = [box[1] - MIN_SPAN / 2, box[3] + MIN_SPAN / 2];
    const area = readArea({ bbox: box });
    for (const info of store.list()) {
      const b = info.bbox;
      if (!b || b[0] > box[2] || b[2] < box[0] || b[1] > box[3] || b[3] < box[1]) continue;
      const features: unknown[] = [];
      for (const f of await store.intersecting(info.id, area.polygon)) {
        const geometry = clip(f.geometry as Geometry, area);
        if (!geometry) continue;
        const name = typeof f.tags['name'] === 'string' ? f.tags['name'] : '';
        features.push({ type: 'Feature' as const, id: f.sourceId, geometry: geometry as never, properties: { name, attributes: f.tags } });
      }
      if (features.length)
        out.push({
          kind: 'compute',
          name: `Layer ${info.name}`,
          role: 'data',
          streetBasemap: info.format === 'osm-pbf' || info.format === 'osm-xml',
          colour: DATA_LAYER_COLOUR,
          count: features.length,
          features: features as never[],
        });
    }
    return out;
  };
}

/** Each entry's layer with the hash of the evidence bundle made from it, where one was. */
export function withEvidence(load: LoadLayers, bundleSha256: (queryId: number) => string | null): LoadLayers {
  return async (selection) => {
    const layers = await load(selection);
    if (selection.compare) return layers;
    return layers.map((l, i) => {
      const sha = l.provenance ? bundleSha256(Number(selection.queryIds[i])) : null;
      return sha && l.provenance ? { ...l, provenance: { ...l.provenance, evidenceSha256: sha } } : l;
    });
  };
}
