import type Map from 'ol/Map';
import type BaseLayer from 'ol/layer/Base';
import type VectorLayer from 'ol/layer/Vector';
import type VectorTileLayer from 'ol/layer/VectorTile';
import type { Extent } from 'ol/extent';
import type { Theme } from '../lib/theme';
import { createBasemapLayers, paintBasemapLayers } from './basemapLayers';
import { BASEMAP_PALETTES } from './basemapPalette';
import { openFileBasemap, type FileBasemap } from './fileBasemap';
import { createOnlineBasemap } from './onlineBasemap';
import { createPackedTilesLayer, type LoadPackedTile } from './packedTiles';
import { createStreetBasemapLayer, paintStreetBasemap, type LoadStreetTile } from './streetBasemap';
import PlaceLabels from './PlaceLabels';
import type { PlaceNamed } from './streetStyle';
import type { PlaceLabel } from '../../../shared/rpc/methods/places';

export interface BasemapsOptions {
  map: Map;
  /** Reports a problem with the online tiles or a basemap file, for the map to show. */
  onProblem: (message: string | null) => void;
  theme?: Theme;
  /** Whether an overlay already labels a place of this name there: the street basemap and a PMTiles file then leave their own label out. */
  placeNamed?: PlaceNamed;
}

/**
 * The basemap stack, bottom up: Natural Earth (bundled, always), the street basemap made from
 * the analyst's OSM extracts (when one is loaded and the online tiles are not shown), tiles
 * opened from area packs (likewise), online OSM tiles (when chosen and online), a user's
 * PMTiles file (when one is opened). Results and overlays go above.
 */
export default class Basemaps {
  private online: BaseLayer | null = null;
  private packed: BaseLayer | null = null;
  private street: VectorTileLayer | null = null;
  private theme: Theme;
  private file: FileBasemap | null = null;
  /** Increases with each file opened, so a slow header read cannot replace a newer choice. */
  private fileSeq = 0;
  private readonly natural: VectorLayer[];
  /** Country and city names over Natural Earth and the street basemap, under any tiles that carry their own. */
  private readonly places: PlaceLabels;

  constructor(private readonly options: BasemapsOptions) {
    this.theme = options.theme ?? 'light';
    this.natural = createBasemapLayers(BASEMAP_PALETTES[options.theme ?? 'light']);
    for (const layer of this.natural) options.map.addLayer(layer);
    this.places = new PlaceLabels(this.theme, options.placeNamed);
    options.map.addLayer(this.places.layer);
  }

  /** The catalog's places to name. */
  setPlaces(places: { countries: readonly PlaceLabel[]; cities: readonly PlaceLabel[] }): void {
    this.places.setPlaces(places);
  }

  /** Online tiles and a basemap file name places themselves. */
  private showPlaces(): void {
    this.places.layer.setVisible(this.online === null && this.file === null);
  }

  /**
   * Follows the app's theme: Natural Earth is recoloured. The online tiles are turned dark by a
   * CSS filter on their own canvas (ONLINE_TILES_CLASS, MapView's style), and a user's PMTiles
   * file is shown as its maker drew it.
   */
  setTheme(theme: Theme): void {
    this.theme = theme;
    paintBasemapLayers(this.natural, BASEMAP_PALETTES[theme]);
    this.places.setTheme(theme);
    if (this.street) paintStreetBasemap(this.street, theme, this.options.placeNamed);
  }

  /** Above Natural Earth's land, borders and place names (the first three layers) and the street basemap when shown. */
  private insertAboveBase(layer: BaseLayer, offset: number): void {
    this.options.map.getLayers().insertAt(3 + (this.street ? 1 : 0) + offset, layer);
  }

  /**
   * Shows the street basemap over the extracts' boxes (degrees), null hides it; made afresh
   * each time so tiles of changed layers are read again.
   */
  setStreet(street: { load: LoadStreetTile; bboxes: readonly Extent[] } | null): void {
    if (this.street) {
      this.options.map.removeLayer(this.street);
      this.street.dispose();
      this.street = null;
    }
    if (!street) return;
    this.street = createStreetBasemapLayer(street.load, this.theme, street.bboxes, this.options.placeNamed);
    // Just above Natural Earth, under the place names, below pack, online and file tiles.
    this.options.map.getLayers().insertAt(2, this.street);
  }

  /** Places its labels again (what the overlays name has changed); the place names are always drawn, so always true. */
  relabel(): boolean {
    this.street?.changed();
    this.places.layer.changed();
    const file = this.file?.kind === 'vector' ? this.file.layer : null;
    file?.changed();
    return true;
  }

  get streetShown(): boolean {
    return this.street !== null;
  }

  setOnline(show: boolean): void {
    if (show === (this.online !== null)) return;
    if (show) {
      this.online = createOnlineBasemap(() =>
        this.options.onProblem('Online tiles did not load; the offline basemap is shown.'),
      );
      this.insertAboveBase(this.online, this.packed ? 1 : 0);
    } else if (this.online) {
      this.options.map.removeLayer(this.online);
      this.online.dispose();
      this.online = null;
    }
    this.showPlaces();
  }

  /** Shows the cached pack tiles up to their deepest zoom (null hides them); made afresh each time so newly opened tiles are read. */
  setPacked(packed: { load: LoadPackedTile; maxZoom: number } | null): void {
    if (this.packed) {
      this.options.map.removeLayer(this.packed);
      this.packed.dispose();
      this.packed = null;
    }
    if (!packed) return;
    this.packed = createPackedTilesLayer(packed.load, packed.maxZoom);
    this.insertAboveBase(this.packed, 0);
  }

  get onlineShown(): boolean {
    return this.online !== null;
  }

  /** Opens a PMTiles file as the top basemap (null closes it); resolves to what was opened. */
  async setFile(file: File | null): Promise<FileBasemap | null> {
    const seq = ++this.fileSeq;
    if (this.file) {
      this.options.map.removeLayer(this.file.layer);
      this.file.layer.dispose();
      this.file = null;
      this.showPlaces();
    }
    if (!file) return null;
    try {
      const opened = await openFileBasemap(file, this.options.placeNamed);
      if (seq !== this.fileSeq) {
        opened.layer.dispose();
        return null;
      }
      this.file = opened;
      this.showPlaces();
      this.insertAboveBase(opened.layer, (this.online ? 1 : 0) + (this.packed ? 1 : 0));
      this.options.onProblem(null);
      return opened;
    } catch (e) {
      this.options.onProblem(e instanceof Error ? e.message : String(e));
      return null;
    }
  }

  dispose(): void {
    void this.setFile(null);
    this.setOnline(false);
    this.setPacked(null);
    this.setStreet(null);
    this.places.dispose();
  }
}
