import type { PackLayers } from '../fieldkit/pack/layers-port';
import type { ServiceLayers } from '../local-service/layers/registry';
import type { EmbeddedLayerStore } from '../local-service/layers/store/layer-store';
import type { LayerFormat } from '../local-service/layers/types';

/**
 * The data layers as an area pack reads and writes them: features from the store, and a
 * packed layer stored whole, then announced so the question vocabulary learns its words.
 */
export function packLayers(store: EmbeddedLayerStore, service: ServiceLayers): PackLayers {
  return {
    list: () => store.list(),
    intersecting: (id, geometry) => store.intersecting(id, geometry),
    async replace(layer, features) {
      const same = store.list().filter((x) => x.name === layer.name && x.sourceFile === layer.sourceFile);
      for (const x of same) await service.remove(x.id);
      const writer = store.create({ ...layer, format: layer.format as LayerFormat });
      try {
        for (let i = 0; i < features.length; i += 1000)
          writer.add(
            features.slice(i, i + 1000).map((f) => ({
              sourceId: f.sourceId,
              geometry: f.geometry,
              properties: f.tags,
              ...(f.sublayer ? { sublayer: f.sublayer } : {}),
            })),
          );
        service.announce({ type: 'added', layer: writer.commit([]) });
      } catch (e) {
        writer.abort();
        throw e;
      }
      return { replaced: same.length > 0 };
    },
  };
}
