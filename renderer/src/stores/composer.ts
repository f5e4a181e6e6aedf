import { defineStore } from 'pinia';
import { isValidCell } from 'h3-js';
import { computed, ref } from 'vue';
import { composerRequest, nextPointName, roundCoord, type IncludeStats, type NamedPoint } from '../lib/composer';

/** H3 resolutions offered when picking cells (0 coarsest … 15 finest). */
export const H3_RESOLUTIONS = Array.from({ length: 16 }, (_, i) => i);

/**
 * The compute composer's extra fields, shared by the side panel (lists, text fields) and the map
 * (right-click adds a named coordinate, dragging moves it; clicking picks H3 cells at
 * `h3Resolution`). Plain data: the map draws what is here and calls the actions below.
 */
export const useComposerStore = defineStore('composer', () => {
  const userId = ref('');
  const areaId = ref('');
  const mode = ref('');
  const includeStats = ref<IncludeStats | ''>('');
  const coordinates = ref<NamedPoint[]>([]);
  const h3Ids = ref<string[]>([]);
  const h3Resolution = ref(7);
  let seq = 0;

  function addCoordinate(longitude: number, latitude: number, name?: string): string {
    const id = `pt-${++seq}`;
    coordinates.value = [
      ...coordinates.value,
      { id, name: name?.trim() || nextPointName(coordinates.value), latitude: roundCoord(latitude), longitude: roundCoord(longitude) },
    ];
    return id;
  }
  function renameCoordinate(id: string, name: string): void {
    coordinates.value = coordinates.value.map((p) => (p.id === id ? { ...p, name } : p));
  }
  function moveCoordinate(id: string, longitude: number, latitude: number): void {
    coordinates.value = coordinates.value.map((p) => (p.id === id ? { ...p, latitude: roundCoord(latitude), longitude: roundCoord(longitude) } : p));
  }
  function removeCoordinate(id: string): void {
    coordinates.value = coordinates.value.filter((p) => p.id !== id);
  }

  /** Adds cells not yet listed; returns the ids that are not H3 cells (nothing is added for those). */
  function addH3(ids: readonly string[]): string[] {
    const clean = ids.map((s) => s.trim().toLowerCase()).filter(Boolean);
    const bad = clean.filter((c) => !isValidCell(c));
    const have = new Set(h3Ids.value);
    const add = clean.filter((c) => isValidCell(c) && !have.has(c) && have.add(c));
    if (add.length) h3Ids.value = [...h3Ids.value, ...add];
    return bad;
  }
  function removeH3(id: string): void {
    h3Ids.value = h3Ids.value.filter((c) => c !== id);
  }
  /** A map click on a cell: listed then removed, else added. */
  function toggleH3(id: string): void {
    if (h3Ids.value.includes(id)) removeH3(id);
    else addH3([id]);
  }
  function clearH3(): void {
    h3Ids.value = [];
  }
  function setH3Resolution(r: number): void {
    if (H3_RESOLUTIONS.includes(r)) h3Resolution.value = r;
  }

  /** How many of the "More" fields are set, for the disclosure's label. */
  const setCount = computed(
    () =>
      [userId.value.trim(), areaId.value.trim(), mode.value.trim(), includeStats.value].filter(Boolean).length +
      (coordinates.value.length ? 1 : 0) +
      (h3Ids.value.length ? 1 : 0),
  );

  const request = () =>
    composerRequest({
      userId: userId.value,
      areaId: areaId.value,
      mode: mode.value,
      includeStats: includeStats.value,
      coordinates: coordinates.value,
      h3Ids: h3Ids.value,
    });

  return {
    userId,
    areaId,
    mode,
    includeStats,
    coordinates: computed(() => coordinates.value as readonly NamedPoint[]),
    h3Ids: computed(() => h3Ids.value as readonly string[]),
    h3Resolution: computed(() => h3Resolution.value),
    setCount,
    addCoordinate,
    renameCoordinate,
    moveCoordinate,
    removeCoordinate,
    addH3,
    removeH3,
    toggleH3,
    clearH3,
    setH3Resolution,
    request,
  };
});
