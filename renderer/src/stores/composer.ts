import { defineStore } from 'pinia';
import { readonly, ref } from 'vue';

/** A place the question can name ("near Depot"), as the map and the composer share it. */
export interface NamedCoordinate {
  name: string;
  lon: number;
  lat: number;
}

/** H3 resolutions a person can pick from (h3-js accepts 0..15). */
export const H3_RESOLUTION = { min: 0, max: 15, default: 7 } as const;

/**
 * What the compute composer sends besides the question and that is picked on the map: named
 * coordinates (right-click to add, drag to move) and H3 cells at one resolution.
 */
export const useComposerStore = defineStore('composer', () => {
  const namedCoordinates = ref<NamedCoordinate[]>([]);
  const h3Ids = ref<string[]>([]);
  const h3Resolution = ref<number>(H3_RESOLUTION.default);

  /** Adds a coordinate; a name already used replaces the old place (names are how questions refer to them). */
  function addCoordinate(c: NamedCoordinate): void {
    const name = c.name.trim();
    if (!name) return;
    namedCoordinates.value = [...namedCoordinates.value.filter((n) => n.name !== name), { name, lon: c.lon, lat: c.lat }];
  }
  function moveCoordinate(name: string, lon: number, lat: number): void {
    namedCoordinates.value = namedCoordinates.value.map((n) => (n.name === name ? { ...n, lon, lat } : n));
  }
  function renameCoordinate(from: string, to: string): void {
    const name = to.trim();
    if (!name || name === from) return;
    const moved = namedCoordinates.value.find((n) => n.name === from);
    if (!moved) return;
    namedCoordinates.value = [
      ...namedCoordinates.value.filter((n) => n.name !== from && n.name !== name),
      { ...moved, name },
    ];
  }
  function removeCoordinate(name: string): void {
    namedCoordinates.value = namedCoordinates.value.filter((n) => n.name !== name);
  }

  /** A click on a picked cell un-picks it. */
  function toggleH3(id: string): void {
    h3Ids.value = h3Ids.value.includes(id) ? h3Ids.value.filter((c) => c !== id) : [...h3Ids.value, id];
  }
  /** Adds cells (a filled polygon) without repeating any already picked. */
  function addH3(ids: readonly string[]): void {
    const have = new Set(h3Ids.value);
    h3Ids.value = [...h3Ids.value, ...ids.filter((id) => !have.has(id) && have.add(id))];
  }
  function clearH3(): void {
    h3Ids.value = [];
  }
  function setH3Resolution(res: number): void {
    if (Number.isInteger(res) && res >= H3_RESOLUTION.min && res <= H3_RESOLUTION.max) h3Resolution.value = res;
  }

  return {
    namedCoordinates: readonly(namedCoordinates),
    h3Ids: readonly(h3Ids),
    h3Resolution: readonly(h3Resolution),
    addCoordinate,
    moveCoordinate,
    renameCoordinate,
    removeCoordinate,
    toggleH3,
    addH3,
    clearH3,
    setH3Resolution,
  };
});
