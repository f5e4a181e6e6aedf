import type { FeatureLike } from 'ol/Feature';
import type { FlatStyle } from 'ol/style/flat';
import { Circle, Fill, Icon, Stroke, Style, Text } from 'ol/style';
import Point from 'ol/geom/Point';
import { arrowRotation } from './facing';
import type { PointStyle } from './PointsLayer';

/** A dot for a position, an outline for lines and areas; emphasised for the selection. */
export function dotStyle(color: string, emphasised: boolean): Style {
  return new Style({
    zIndex: emphasised ? 10 : 0,
    image: new Circle({
      declutterMode: 'none',
      radius: emphasised ? 8 : 5,
      fill: new Fill({ color }),
      stroke: new Stroke({ color: '#ffffff', width: emphasised ? 2.5 : 1.5 }),
    }),
    stroke: new Stroke({ color, width: emphasised ? 3 : 2 }),
    fill: new Fill({ color: `${color}33` }),
  });
}

/** A capture: a dot with a pointed wedge towards where the camera looked, drawn pointing up. */
function arrowSvg(color: string, emphasised: boolean): string {
  const rim = emphasised ? 2.5 : 1.5;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">` +
    `<path d="M16 1 L23 14 A8 8 0 1 1 9 14 Z" fill="${color}" stroke="#ffffff" stroke-width="${rim}" stroke-linejoin="round"/>` +
    `</svg>`
  );
}

const arrowCache = new Map<string, Style>();

/** The arrow style for a facing in degrees (rounded to one degree: the data is no finer). */
export function arrowStyle(color: string, degrees: number, emphasised: boolean): Style {
  const deg = Math.round(degrees) % 360;
  const key = `${color}|${deg}|${emphasised}`;
  let style = arrowCache.get(key);
  if (!style) {
    style = new Style({
      zIndex: emphasised ? 10 : 0,
      image: new Icon({
        src: `data:image/svg+xml;utf8,${encodeURIComponent(arrowSvg(color, emphasised))}`,
        // The centre of the round part: the arrow turns about the capture position.
        anchor: [16, 20],
        anchorXUnits: 'pixels',
        anchorYUnits: 'pixels',
        scale: emphasised ? 1.1 : 0.8,
        rotation: arrowRotation(deg),
        rotateWithView: true,
        declutterMode: 'none',
      }),
    });
    arrowCache.set(key, style);
  }
  return style;
}

/** A label's words: the name, then the figure the question asked about ("Annecy store · 340"). */
export const labelText = (f: FeatureLike): string => {
  const raw = String(f.get('name') ?? '');
  // A label is a hint; the full name is in the details panel.
  const name = raw.length > 60 ? `${raw.slice(0, 59)}…` : raw;
  const figure = f.get('figure') as string | undefined;
  return figure ? `${name} · ${figure}` : name;
};
// Clear of the dot and its white rim, so the label's halo never covers it.
const labelOffsetY = (selected: boolean) => (selected ? -21 : -17);
/** Room between a dot and a label beside it. */
const SIDE_GAP = 10;

export type LabelSide = 'above' | 'right' | 'left';
/**
 * Where a label goes, in order: above its dot, else beside it. A control or a panel over the map
 * (the Layers panel) covering the place above a dot moves its label aside rather than hiding it.
 */
export const LABEL_SIDES: readonly LabelSide[] = ['above', 'right', 'left'];

/** Features are named on the map: the basemap has no place labels to read them by. */
export function labelStyle(f: FeatureLike, selected: boolean, side: LabelSide = 'above'): Style {
  const at = f.get('labelAt') as [number, number] | undefined;
  return new Style({
    zIndex: selected ? 11 : 1,
    // An area labelled where the features it counts lie (a country of "per country").
    ...(at ? { geometry: new Point(at) } : {}),
    text: new Text({
      text: labelText(f),
      font: selected ? '600 12px system-ui, sans-serif' : '12px system-ui, sans-serif',
      ...(side === 'above'
        ? { offsetY: labelOffsetY(selected) }
        : { offsetX: side === 'right' ? SIDE_GAP : -SIDE_GAP, textAlign: side === 'right' ? ('left' as const) : ('right' as const) }),
      fill: new Fill({ color: selected ? '#1d2733' : '#3d4a58' }),
      stroke: new Stroke({ color: '#ffffff', width: 3 }),
      overflow: true,
    }),
  });
}

/**
 * The box a label takes around its feature's pixel, in CSS pixels, halo included: measured by
 * a generous width per character, since the canvas measures only while drawing. `offsetX` and
 * `offsetY` place the box's centre from the pixel.
 */
export function labelBox(f: FeatureLike, selected: boolean, side: LabelSide = 'above'): { width: number; height: number; offsetX: number; offsetY: number } {
  const width = labelText(f).length * (selected ? 7.5 : 7) + 6;
  if (side === 'above') return { width, height: 18, offsetX: 0, offsetY: labelOffsetY(selected) };
  return { width, height: 18, offsetX: (side === 'right' ? 1 : -1) * (SIDE_GAP + width / 2), offsetY: 0 };
}

/** The GPU style of large sets: the same dot and outline as the canvas style, without labels. */
export function webglStyle(color: string): FlatStyle {
  return {
    'circle-radius': 4,
    'circle-fill-color': color,
    'circle-stroke-color': '#ffffff',
    'circle-stroke-width': 1,
    'stroke-color': color,
    'stroke-width': 2,
    'fill-color': `${color}33`,
  };
}

/** The GPU style of large point sets: a plain dot with a light rim. */
export function webglPointStyle(color: string): PointStyle {
  return { fill: color, rim: '#ffffff', radius: 3.5, rimWidth: 0.75 };
}

const clusterCache = new Map<string, Style>();

/** A cluster: a disc sized by how many it holds, with the count; a single feature stays a dot. */
export function clusterStyle(color: string, size: number, single: Style): Style {
  if (size <= 1) return single;
  const text = size >= 10_000 ? `${Math.round(size / 1000)}k` : size.toLocaleString('en');
  const key = `${color}|${text}`;
  let style = clusterCache.get(key);
  if (!style) {
    style = new Style({
      image: new Circle({
        radius: Math.min(30, 10 + 4 * Math.log10(size) * 2),
        fill: new Fill({ color }),
        stroke: new Stroke({ color: '#ffffff', width: 2 }),
      }),
      text: new Text({
        text,
        font: '600 12px system-ui, sans-serif',
        fill: new Fill({ color: '#ffffff' }),
      }),
    });
    if (clusterCache.size > 2000) clusterCache.clear();
    clusterCache.set(key, style);
  }
  return style;
}
