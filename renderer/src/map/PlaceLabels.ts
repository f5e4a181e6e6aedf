import Feature from 'ol/Feature';
import type { FeatureLike } from 'ol/Feature';
import Point from 'ol/geom/Point';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style';
import type { PlaceLabel } from '../../../shared/rpc/methods/places';
import type { Theme } from '../lib/theme';
import type { PlaceNamed } from './streetStyle';

/** Label colours per theme: muted grey for countries, darker (lighter in dark) for cities, a halo of the land's tone. */
export const PLACE_PALETTES: Record<Theme, { country: string; city: string; halo: string; dot: string }> = {
  light: { country: '#7a7f93', city: '#2b2f3a', halo: '#f7f8f2', dot: '#5a5f6e' },
  dark: { country: '#8d96a8', city: '#dde3ea', halo: '#1b2026', dot: '#aab2bf' },
};

/**
 * The fewest people a city needs to be named at a zoom (index = zoom, the last for every zoom
 * past it), as web maps thin their place labels: capitals of millions from afar, towns close in.
 */
export const CITY_MIN_POP = [10_000_000, 7_000_000, 4_000_000, 2_000_000, 1_000_000, 400_000, 150_000, 60_000, 30_000, 15_000];
/** Countries are named from afar until cities fill the view; the largest first. */
const COUNTRY_MAX_ZOOM = 7;
/** Below this zoom only countries of this many people are named (the small ones crowd the world view). */
const COUNTRY_MIN_POP_FAR = 30_000_000;

/** The fewest people a city needs to be named at a (fractional) zoom. */
export const cityMinPopulation = (zoom: number): number => CITY_MIN_POP[Math.max(0, Math.min(CITY_MIN_POP.length - 1, Math.floor(zoom)))]!;

/**
 * Country and city names of the built-in catalog over the offline basemap, thinned by zoom and
 * decluttered (the most populous kept where two collide), leaving out a place an overlay names.
 */
export default class PlaceLabels {
  readonly layer: VectorLayer;
  private theme: Theme;
  private readonly styles = new Map<string, Style>();

  constructor(theme: Theme, private readonly placeNamed?: PlaceNamed) {
    this.theme = theme;
    this.layer = new VectorLayer({
      source: new VectorSource(),
      declutter: true,
      // Largest first: where labels collide, the first drawn stays.
      renderOrder: (a, b) => (b.get('pop') as number) - (a.get('pop') as number),
      style: (f, resolution) => this.style(f, resolution),
      properties: { name: 'basemap-places' },
      updateWhileInteracting: false,
    });
  }

  setPlaces(places: { countries: readonly PlaceLabel[]; cities: readonly PlaceLabel[] }): void {
    const made = (p: PlaceLabel, kind: 'country' | 'city') => {
      const f = new Feature(new Point(fromLonLat([p.lon, p.lat])));
      f.setProperties({ name: p.name, pop: p.pop, place: kind });
      return f;
    };
    const source = this.layer.getSource()!;
    source.clear();
    source.addFeatures([...places.countries.map((p) => made(p, 'country')), ...places.cities.map((p) => made(p, 'city'))]);
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.styles.clear();
    this.layer.changed();
  }

  private style(f: FeatureLike, resolution: number): Style | undefined {
    const zoom = Math.log2(156543.03392804097 / resolution);
    const kind = f.get('place') as 'country' | 'city';
    const pop = f.get('pop') as number;
    if (kind === 'country' ? zoom >= COUNTRY_MAX_ZOOM || (zoom < 3 && pop < COUNTRY_MIN_POP_FAR) : pop < cityMinPopulation(zoom)) return undefined;
    const name = String(f.get('name'));
    const at = (f.getGeometry() as Point).getCoordinates();
    if (this.placeNamed?.(name, at, resolution)) return undefined;
    const key = `${kind}|${name}`;
    let s = this.styles.get(key);
    if (!s) {
      const p = PLACE_PALETTES[this.theme];
      s =
        kind === 'country'
          ? new Style({
              text: new Text({ text: name.toUpperCase(), font: '600 11px system-ui, sans-serif', fill: new Fill({ color: p.country }), stroke: new Stroke({ color: p.halo, width: 3 }) }),
            })
          : new Style({
              // The dot goes with its name where the name gives way.
              image: new Circle({ radius: 2.5, fill: new Fill({ color: p.dot }) }),
              text: new Text({ text: name, font: '12px system-ui, sans-serif', offsetY: -10, fill: new Fill({ color: p.city }), stroke: new Stroke({ color: p.halo, width: 3 }) }),
            });
      this.styles.set(key, s);
    }
    return s;
  }

  dispose(): void {
    this.layer.getSource()?.clear();
    this.layer.dispose();
  }
}
