import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { nextTick } from 'vue';
import { useMapStore } from '../../../renderer/src/stores/map';

beforeEach(() => setActivePinia(createPinia()));

const collection = (ids: string[]) => ({
  type: 'FeatureCollection' as const,
  features: ids.map((id, i) => ({ type: 'Feature' as const, id, geometry: { type: 'Point', coordinates: [i, i] }, properties: { name: id } })),
});

describe('map store: diff and facing overlays', () => {
  it('a shown diff turns its overlay back on and asks for a zoom; an empty one does not zoom', () => {
    const map = useMapStore();
    map.setOverlay('diff', false);
    map.showDiff({ oldId: 1, newId: 2, items: [] });
    expect(map.diffSeq).toBe(0);
    expect(map.overlays.diff).toBe(false);
    map.showDiff({ oldId: 1, newId: 2, items: [{ id: 'a', change: 'added', geometry: { type: 'Point', coordinates: [1, 2] }, from: null }] });
    expect(map.diffSeq).toBe(1);
    expect(map.overlays.diff).toBe(true);
    map.showDiff(null);
    expect(map.diff).toBeNull();
  });

  it('facing arrows belong to the selected feature: another selection clears them', async () => {
    const map = useMapStore();
    map.show('ask', collection(['p', 'q']));
    map.select('ask', 'p');
    await nextTick();
    map.showFacing({ label: 'p', target: [0, 0], captures: [{ featureId: 'c1', lon: 0.001, lat: 0.001 }] });
    await nextTick();
    expect(map.facing?.label).toBe('p');
    map.select('ask', 'q');
    await nextTick();
    expect(map.facing).toBeNull();
  });
});
