import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { H3_RESOLUTION, useComposerStore } from '../../../renderer/src/stores/composer';

describe('composer store: what the map picks for a question', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('adds, moves, renames and removes named coordinates; a reused name replaces the old place', () => {
    const c = useComposerStore();
    c.addCoordinate({ name: ' Depot ', lon: 4.85, lat: 45.76 });
    c.addCoordinate({ name: 'Site B', lon: 2.35, lat: 48.85 });
    expect(c.namedCoordinates).toEqual([
      { name: 'Depot', lon: 4.85, lat: 45.76 },
      { name: 'Site B', lon: 2.35, lat: 48.85 },
    ]);
    c.moveCoordinate('Depot', 5, 46);
    expect(c.namedCoordinates.find((n) => n.name === 'Depot')).toEqual({ name: 'Depot', lon: 5, lat: 46 });
    c.addCoordinate({ name: 'Depot', lon: 1, lat: 2 });
    expect(c.namedCoordinates.filter((n) => n.name === 'Depot')).toEqual([{ name: 'Depot', lon: 1, lat: 2 }]);
    c.renameCoordinate('Site B', 'Paris office');
    expect(c.namedCoordinates.map((n) => n.name).sort()).toEqual(['Depot', 'Paris office']);
    c.removeCoordinate('Depot');
    expect(c.namedCoordinates).toEqual([{ name: 'Paris office', lon: 2.35, lat: 48.85 }]);
    c.addCoordinate({ name: '   ', lon: 0, lat: 0 });
    expect(c.namedCoordinates).toHaveLength(1);
  });

  it('toggles H3 cells, adds a fill without repeats, and keeps the resolution within 0..15', () => {
    const c = useComposerStore();
    expect(c.h3Resolution).toBe(H3_RESOLUTION.default);
    c.toggleH3('871fb4670ffffff');
    c.addH3(['871fb4670ffffff', '871fb4671ffffff', '871fb4671ffffff']);
    expect(c.h3Ids).toEqual(['871fb4670ffffff', '871fb4671ffffff']);
    c.toggleH3('871fb4670ffffff');
    expect(c.h3Ids).toEqual(['871fb4671ffffff']);
    c.setH3Resolution(16);
    c.setH3Resolution(2.5);
    expect(c.h3Resolution).toBe(H3_RESOLUTION.default);
    c.setH3Resolution(9);
    expect(c.h3Resolution).toBe(9);
    c.clearH3();
    expect(c.h3Ids).toEqual([]);
  });
});
