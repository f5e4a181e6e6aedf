import { ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type FieldMap from '../../map/FieldMap';
import { OVERLAY_COLOURS } from '../../map/layerColours';
import { lonLatOf } from '../../map/lonLat';
import NamedCoordinatesLayer from '../../map/NamedCoordinatesLayer';
import type { NamedPoint } from '../../lib/composer';
import { useComposerStore } from '../../stores/composer';
import { useMapStore } from '../../stores/map';
import type { MenuRequest } from './MapMenu.vue';

const pinsOf = (list: readonly NamedPoint[]) => list.map((p) => ({ name: p.name, lon: p.longitude, lat: p.latitude }));

/**
 * The composer's named coordinates as pins: the right-click menu that adds, renames and removes
 * them, dragging to move, selecting with a click and removing the selected pin with Delete.
 */
export function useNamedCoordinates(fieldMap: ShallowRef<FieldMap | null>, target: Ref<HTMLElement | null>) {
  const store = useMapStore();
  const composer = useComposerStore();
  const pins = shallowRef<NamedCoordinatesLayer | null>(null);
  const menu = ref<MenuRequest | null>(null);
  const selectedPin = ref<string | null>(null);

  // The composer keys coordinates by id; on the map a pin is its name (questions say the name).
  const pinId = (name: string) => composer.coordinates.find((p) => p.name === name)?.id;

  function selectPin(name: string | null): void {
    selectedPin.value = name;
    pins.value?.select(name);
  }

  function onContextMenu(e: MouseEvent): void {
    const m = fieldMap.value;
    if (!m) return;
    e.preventDefault();
    const pixel = m.map.getEventPixel(e);
    const coordinate = m.map.getCoordinateFromPixel(pixel);
    if (!coordinate) return;
    const name = store.overlays.coordinates ? (pins.value?.nameAt(pixel) ?? null) : null;
    const box = target.value!.getBoundingClientRect();
    menu.value = { x: e.clientX - box.left, y: e.clientY - box.top, lonLat: lonLatOf(coordinate), name };
    if (name) selectPin(name);
  }

  function onKey(e: KeyboardEvent): void {
    if ((e.key === 'Delete' || e.key === 'Backspace') && selectedPin.value && !menu.value) {
      e.preventDefault();
      const id = pinId(selectedPin.value);
      if (id) composer.removeCoordinate(id);
      selectPin(null);
    }
  }

  function attach(m: FieldMap): void {
    pins.value = new NamedCoordinatesLayer({
      map: m.map,
      color: OVERLAY_COLOURS.coordinates,
      onMove: (name, lon, lat) => {
        const id = pinId(name);
        if (id) composer.moveCoordinate(id, lon, lat);
      },
    });
    m.map.on('singleclick', (e) => {
      menu.value = null;
      if (store.tool !== 'select') return;
      selectPin(store.overlays.coordinates ? (pins.value?.nameAt(e.pixel) ?? null) : null);
      // The map takes the keyboard so Delete removes the selected pin (OpenLayers keeps the
      // pointer's default focus from happening).
      if (selectedPin.value) target.value?.focus();
    });
    target.value?.addEventListener('contextmenu', onContextMenu);
    pins.value.setVisible(store.overlays.coordinates);
    pins.value.setCoordinates(pinsOf(composer.coordinates));
  }

  function addCoordinate(name: string, lonLat: [number, number]): void {
    // A name already pinned moves that pin: two places of one name could not be told apart in a question.
    const id = pinId(name.trim());
    if (id) composer.moveCoordinate(id, lonLat[0], lonLat[1]);
    else composer.addCoordinate(lonLat[0], lonLat[1], name);
    menu.value = null;
    selectPin(name.trim());
  }
  function removeCoordinate(name: string): void {
    const id = pinId(name);
    if (id) composer.removeCoordinate(id);
    menu.value = null;
    selectPin(null);
  }
  function renameCoordinate(from: string, to: string): void {
    const id = pinId(from);
    if (id && to.trim()) composer.renameCoordinate(id, to.trim());
    menu.value = null;
    selectPin(to.trim());
  }

  watch(() => composer.coordinates, (list) => pins.value?.setCoordinates(pinsOf(list)));
  watch(
    () => store.overlays.coordinates,
    (shown) => pins.value?.setVisible(shown),
  );

  function dispose(): void {
    target.value?.removeEventListener('contextmenu', onContextMenu);
    pins.value?.dispose();
    pins.value = null;
  }

  return { menu, onKey, attach, addCoordinate, removeCoordinate, renameCoordinate, dispose };
}
