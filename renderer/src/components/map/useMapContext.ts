import { toLonLat } from 'ol/proj';
import { ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type FieldMap from '../../map/FieldMap';
import ReferenceLayer from '../../map/ReferenceLayer';
import { useAskStore } from '../../stores/ask';
import { useMapStore } from '../../stores/map';
import { usePackedTilesStore } from '../../stores/packedTiles';
import { usePlacesStore } from '../../stores/places';
import { useStreetBasemapStore } from '../../stores/streetBasemap';
import { useThemeStore } from '../../stores/theme';

/** From this zoom Natural Earth shows nothing but land: without an extract, a pack or online tiles the map is blank there. */
export const DETAIL_ZOOM = 11;

/**
 * What tells the person where they are: the catalog's place names on the basemap, the answer's
 * reference (place, radius, ring, area) drawn under its results, and, at a zoom where nothing
 * loaded covers the view, one note offering to load an extract or build an area pack.
 */
export function useMapContext(fieldMap: ShallowRef<FieldMap | null>, tilesShown: Ref<boolean>) {
  const ask = useAskStore();
  const places = usePlacesStore();
  const street = useStreetBasemapStore();
  const packed = usePackedTilesStore();
  const theme = useThemeStore();
  const mapStore = useMapStore();
  const reference = shallowRef<ReferenceLayer | null>(null);
  /** What is drawn ("Lyon|50|150" per reference, ";" between), for tests and assistive text. */
  const referenceText = ref('');
  /** The note that nothing loaded covers the view; shown once, until dismissed or covered. */
  const uncovered = ref(false);
  let noted = false;
  /** Increases with each reading, so a slow look-up cannot draw an older answer's reference. */
  let seq = 0;

  async function drawReference(): Promise<void> {
    const mine = ++seq;
    // A refused or failed question greys the answer: its reference goes with its results.
    const found = ask.stale ? [] : await places.referencesOf(ask.reading);
    // An area the answer itself lists (countries in a region) is drawn as a result already.
    const listed = new Set((ask.response?.results.features ?? []).map((f) => f.properties.name));
    const refs = found.filter((r) => !(r.area && listed.has(r.label)));
    if (mine !== seq || !reference.value) return;
    reference.value.set(refs);
    referenceText.value = refs.map((r) => [r.label, r.minKm ?? '', r.maxKm ?? '', r.area ? 'area' : r.line ? 'line' : ''].join('|')).join(';');
  }

  /** Whether the street basemap or a pack's tiles cover the view's centre at this zoom. */
  async function covered(m: FieldMap): Promise<boolean> {
    // Online tiles, and a basemap file the person opened, draw their own detail.
    if (tilesShown.value || mapStore.basemapFile) return true;
    const view = m.map.getView();
    const [lon, lat] = toLonLat(view.getCenter() ?? [0, 0]) as [number, number];
    if (street.shown && street.bboxes.some(([w, s, e, n]) => lon >= w! && lon <= e! && lat >= s! && lat <= n!)) return true;
    const maxZoom = packed.held.maxZoom;
    if (packed.shown && packed.held.count > 0 && maxZoom !== null) {
      const z = Math.min(maxZoom, Math.floor(view.getZoom() ?? 0));
      const x = Math.floor(((lon + 180) / 360) * 2 ** z);
      const r = (lat * Math.PI) / 180;
      const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
      return (await packed.load(z, x, y).catch(() => null)) !== null;
    }
    return false;
  }

  async function checkCoverage(): Promise<void> {
    const m = fieldMap.value;
    if (!m) return;
    const deep = (m.map.getView().getZoom() ?? 0) >= DETAIL_ZOOM;
    const none = deep && !(await covered(m));
    if (none && !noted) {
      noted = true;
      uncovered.value = true;
    } else if (!none) uncovered.value = false;
  }

  function attach(m: FieldMap): void {
    reference.value = new ReferenceLayer(theme.theme);
    // Under the results (added after), over the basemap.
    m.addLayer(reference.value.layer);
    void places.ensureLoaded().then(() => {
      if (places.labels) m.basemaps.setPlaces(places.labels);
    });
    m.map.on('moveend', () => void checkCoverage());
    void drawReference();
  }

  watch([() => ask.reading, () => ask.stale], () => void drawReference());
  watch(
    () => theme.theme,
    (t) => reference.value?.setTheme(t),
  );
  watch([tilesShown, () => street.key, () => packed.seq, () => mapStore.basemapFile], () => void checkCoverage());

  function dispose(): void {
    reference.value?.dispose();
    reference.value = null;
  }

  return { reference, referenceText, uncovered, attach, dispose };
}
