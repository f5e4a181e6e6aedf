import { transformExtent } from 'ol/proj';
import { computed, ref, shallowRef, watch, type Ref } from 'vue';
import FieldMap from '../../map/FieldMap';
import { useMapStore } from '../../stores/map';
import { usePackedTilesStore } from '../../stores/packedTiles';
import { useStreetBasemapStore } from '../../stores/streetBasemap';
import { useThemeStore } from '../../stores/theme';

/**
 * The OpenLayers map itself and its basemap: online tiles when allowed and reachable, tiles
 * opened from area packs otherwise, the theme, a PMTiles file, the pointer readout, and the view the stores ask about. `mount` makes the map
 * once the elements exist; `dispose` ends it after the layers on it are gone.
 */
export function useFieldMap(target: Ref<HTMLElement | null>, coordsEl: Ref<HTMLElement | null>) {
  const store = useMapStore();
  const theme = useThemeStore();
  const packed = usePackedTilesStore();
  const street = useStreetBasemapStore();
  const fieldMap = shallowRef<FieldMap | null>(null);
  const drawn = ref(false);
  /** False while the view moves or redraws; tests wait for true before taking a picture. */
  const settled = ref(false);
  const online = ref(typeof navigator === 'undefined' ? true : navigator.onLine);
  /** A basemap or drawing problem to show until dismissed. */
  const problem = ref<string | null>(null);
  const tilesShown = computed(() => store.onlineTiles && online.value);
  /** Pack tiles stand in for the online ones: drawn when those are off or unreachable. */
  const packedShown = computed(() => packed.shown && packed.held.count > 0 && !tilesShown.value);
  const showPacked = () =>
    fieldMap.value?.basemaps.setPacked(packedShown.value ? { load: packed.load, maxZoom: packed.held.maxZoom ?? 0 } : null);
  /** The street basemap from OSM extracts stands in for the online tiles too, under any pack tiles. */
  const streetShown = computed(() => street.shown && street.bboxes.length > 0 && !tilesShown.value);
  const showStreet = () => fieldMap.value?.basemaps.setStreet(streetShown.value ? { load: street.load, bboxes: street.bboxes } : null);
  const onOnline = () => (online.value = navigator.onLine);

  function mount(): FieldMap | null {
    if (!target.value) return null;
    const m = new FieldMap({
      target: target.value,
      ...(coordsEl.value ? { coordinatesTarget: coordsEl.value } : {}),
      onBasemapProblem: (message) => (problem.value = message),
      theme: theme.theme,
    });
    fieldMap.value = m;
    store.provideCentre(() => m.centreLonLat());
    store.provideExtent(() => {
      const size = m.map.getSize();
      if (!size) return null;
      const [w, s, e, n] = transformExtent(m.map.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326');
      // A view wider than the world is clamped to it (a bbox stays within -180..180, -90..90).
      const clamp = (v: number, lim: number) => Math.min(lim, Math.max(-lim, v));
      return [clamp(w!, 180), clamp(s!, 90), clamp(e!, 180), clamp(n!, 90)];
    });
    store.provideLabels(() => m.labelledNames());
    m.basemaps.setOnline(tilesShown.value);
    showPacked();
    showStreet();
    void packed.refresh();
    street.ensureListed();
    void m.firstRender.then(() => {
      drawn.value = true;
    });
    m.onSettledChange((v) => (settled.value = v));
    window.addEventListener('online', onOnline);
    window.addEventListener('offline', onOnline);
    return m;
  }

  watch(
    () => theme.theme,
    (t) => fieldMap.value?.basemaps.setTheme(t),
  );
  watch(tilesShown, (show) => {
    fieldMap.value?.basemaps.setOnline(show);
    if (!show) problem.value = null;
  });
  watch([packedShown, () => packed.seq], showPacked);
  watch([streetShown, () => street.key], showStreet);
  watch(
    () => store.basemapFile,
    async (file) => {
      const m = fieldMap.value;
      const opened = await m?.basemaps.setFile(file);
      if (opened && m) m.fit(opened.extent, opened.maxZoom);
    },
  );

  function dispose(): void {
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', onOnline);
    store.provideCentre(null);
    store.provideExtent(null);
    store.provideLabels(null);
    fieldMap.value?.dispose();
    fieldMap.value = null;
  }

  return { fieldMap, drawn, settled, online, problem, tilesShown, mount, dispose };
}
