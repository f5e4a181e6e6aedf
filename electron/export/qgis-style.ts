import type { ExportLayerStyle } from '../../shared/rpc/methods/export';
import type { LayerKind } from './types';

/**
 * QGIS symbols and renderers as QML/QGS XML: the default style per layer stored in
 * `layer_styles` (as QGIS itself lays that table out) and the styles of an exported project.
 */

const DEFAULT_COLOUR: Record<LayerKind, string> = {
  compute: '#1f78b4',
  stream: '#e31a1c',
  imagery: '#33a02c',
};

/** The field that names a feature of each kind: map tips and labels. */
export const NAME_FIELD: Record<LayerKind, string> = { compute: 'name', stream: 'feature_name', imagery: 'address' };

export const xmlText = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** '#rrggbb' or '#rrggbbaa' to QGIS's 'r,g,b,a'. */
export function qgisColour(hex: string, alpha?: number): string {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})?$/i.exec(hex.trim());
  if (!m) throw new Error(`Not a colour: ${hex}`);
  const a = alpha ?? (m[4] ? parseInt(m[4], 16) : 255);
  return [m[1], m[2], m[3]].map((h) => parseInt(h!, 16)).join(',') + `,${a}`;
}

const opts = (o: Record<string, string>) =>
  Object.entries(o)
    .map(([k, v]) => `<Option type="QString" name="${k}" value="${xmlText(v)}"/>`)
    .join('');

export type SymbolType = 'marker' | 'line' | 'fill';

export function symbolType(geometryType: string): SymbolType {
  const g = geometryType.toUpperCase();
  return g.includes('POLYGON') ? 'fill' : g.includes('LINE') ? 'line' : 'marker';
}

/** One symbol in the map's look: a dot with a white rim, a line, or a light fill with an outline. */
export function symbolXml(type: SymbolType, hex: string, name: string): string {
  const colour = qgisColour(hex, 255);
  let layer: string;
  if (type === 'fill')
    layer = `<layer class="SimpleFill" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
      color: qgisColour(hex, 51),
      outline_color: colour,
      outline_style: 'solid',
      outline_width: '0.5',
      outline_width_unit: 'MM',
      style: 'solid',
    })}</Option></layer>`;
  else if (type === 'line')
    layer = `<layer class="SimpleLine" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
      line_color: colour,
      line_style: 'solid',
      line_width: '0.6',
      line_width_unit: 'MM',
    })}</Option></layer>`;
  else
    layer = `<layer class="SimpleMarker" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
      color: colour,
      name: 'circle',
      outline_color: '255,255,255,255',
      outline_style: 'solid',
      outline_width: '0.4',
      outline_width_unit: 'MM',
      size: '2.6',
      size_unit: 'MM',
    })}</Option></layer>`;
  return `<symbol type="${type}" name="${xmlText(name)}" alpha="1" clip_to_extent="1" force_rhr="0">${layer}</symbol>`;
}

/**
 * How a layer is coloured, as the map's legend says: one colour, by rank, or by a column's
 * values. The writer passes a rank style with positions as feature ids (the GeoPackage numbers
 * features in the order written) and a column style with the table's column name.
 */
export type LayerStyle = ExportLayerStyle;

const HEAD = `forceraster="0" symbollevels="0" enableorderby="0" referencescale="-1"`;
const flag = (shown: boolean) => (shown ? 'true' : 'false');

function singleXml(colour: string, type: SymbolType): string {
  return `<renderer-v2 type="singleSymbol" ${HEAD}><symbols>${symbolXml(type, colour, '0')}</symbols></renderer-v2>`;
}

/** Ranks as ranges of feature ids, each range inclusive (ids are whole numbers). */
function graduatedXml(style: Extract<LayerStyle, { by: 'rank' }>, type: SymbolType): string {
  const ranges = style.classes
    .map((c, i) => {
      const label = c.first === c.last ? `#${c.first}` : `#${c.first}–${c.last}`;
      return `<range symbol="${i}" lower="${c.first}" upper="${c.last}" label="${xmlText(label)}" render="${flag(c.shown)}"/>`;
    })
    .join('');
  const syms = style.classes.map((c, i) => symbolXml(type, c.colour, String(i))).join('');
  return (
    `<renderer-v2 type="graduatedSymbol" attr="fid" graduatedMethod="GraduatedColor" ${HEAD}>` +
    `<ranges>${ranges}</ranges><symbols>${syms}</symbols><classificationMethod id="Fixed"/></renderer-v2>`
  );
}

/**
 * A category per value. QGIS draws a feature whose value has no category, and one with no value,
 * with the category of the empty value: the map's "Other" and "(no value)" (both grey) share it.
 */
function categorizedXml(style: Extract<LayerStyle, { by: 'column' }>, type: SymbolType): string {
  const named = style.classes.filter((c) => c.value !== null && c.value !== '');
  const none = style.classes.find((c) => c.value === null || c.value === '');
  const rest = style.other ?? none ?? { colour: style.colour, shown: true };
  const restLabel = [none ? '(no value)' : null, style.other ? 'Other' : null].filter(Boolean).join(', ') || 'Other';
  const all = [...named.map((c) => ({ value: c.value!, label: c.value!, colour: c.colour, shown: c.shown })), { value: '', label: restLabel, ...rest }];
  const cats = all
    .map((c, i) => `<category symbol="${i}" value="${xmlText(c.value)}" label="${xmlText(c.label)}" render="${flag(c.shown)}"/>`)
    .join('');
  const syms = all.map((c, i) => symbolXml(type, c.colour, String(i))).join('');
  return `<renderer-v2 type="categorizedSymbol" attr="${xmlText(style.column)}" ${HEAD}><categories>${cats}</categories><symbols>${syms}</symbols></renderer-v2>`;
}

/**
 * QGIS's heatmap renderer in the map's heatmap colours (OpenLayers' default gradient, blue through
 * red, clear where there is nothing); its radius in pixels, the map's radius and blur together.
 */
export function heatmapXml(): string {
  const ramp = opts({
    color1: '0,0,255,0',
    color2: '255,0,0,255',
    discrete: '0',
    rampType: 'gradient',
    stops: '0.2;0,0,255,255:0.4;0,255,255,255:0.6;0,255,0,255:0.8;255,255,0,255',
  });
  return (
    `<renderer-v2 type="heatmapRenderer" radius="20" radius_unit="2" radius_map_unit_scale="3x:0,0,0,0,0,0" max_value="0" quality="3" weight_expression="" forceraster="0" enableorderby="0">` +
    `<colorramp type="gradient" name="[source]"><Option type="Map">${ramp}</Option></colorramp></renderer-v2>`
  );
}

export function rendererXml(style: LayerStyle, type: SymbolType): string {
  if (style.by === 'heatmap') return type === 'marker' ? heatmapXml() : singleXml(style.colour, type);
  if (style.by === 'rank') return graduatedXml(style, type);
  if (style.by === 'column') return categorizedXml(style, type);
  return singleXml(style.colour, type);
}

/** Labels by a field, dark text in a white halo above the dot, as on the map. */
export function labelingXml(field: string): string {
  return (
    `<labeling type="simple"><settings calloutType="simple">` +
    `<text-style fieldName="${xmlText(field)}" isExpression="0" fontSize="9" fontSizeUnit="Point" textColor="61,74,88,255" textOpacity="1" fontFamily="Sans Serif" fontWeight="50" namedStyle="Regular" multilineHeight="1" blendMode="0" allowHtml="0">` +
    `<text-buffer bufferDraw="1" bufferSize="0.8" bufferSizeUnits="MM" bufferColor="255,255,255,255" bufferOpacity="1" bufferNoFill="1" bufferJoinStyle="128" bufferBlendMode="0"/>` +
    `</text-style>` +
    `<placement placement="0" dist="1.5" distUnits="MM" offsetType="0" quadOffset="1" priority="5"/>` +
    `<rendering obstacle="1" drawLabels="1" fontLimitPixelSize="0" displayAll="0" upsidedownLabels="0" scaleVisibility="0" zIndex="0"/>` +
    `</settings></labeling>`
  );
}

/** QML of a layer's style as a project draws it (renderer, labels), its default in `layer_styles`. */
export function layerQml(renderer: string, labels: string | null, geometryType: string, preview: string | null): string {
  const type = symbolType(geometryType);
  return (
    `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n` +
    `<qgis version="3.22.0" styleCategories="AllStyleCategories" labelsEnabled="${labels ? 1 : 0}">` +
    renderer +
    (labels ?? '') +
    (preview ? `<previewExpression>${xmlText(`"${preview}"`)}</previewExpression>` : '') +
    `<layerGeometryType>${type === 'marker' ? 0 : type === 'line' ? 1 : 2}</layerGeometryType>` +
    `</qgis>\n`
  );
}

/** QML for one layer: single-symbol renderer coloured by kind, preview (map tip) field by kind. */
export function defaultQml(kind: LayerKind, geometryType: string): string {
  const type = symbolType(geometryType);
  return (
    `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n` +
    `<qgis version="3.22.0" styleCategories="AllStyleCategories">` +
    rendererXml({ by: 'layer', colour: DEFAULT_COLOUR[kind] }, type) +
    `<previewExpression>"${NAME_FIELD[kind]}"</previewExpression>` +
    `<layerGeometryType>${type === 'marker' ? 0 : type === 'line' ? 1 : 2}</layerGeometryType>` +
    `</qgis>\n`
  );
}
