import type { LayerKind } from './types';

/**
 * A default QGIS style (QML) per layer, stored in `layer_styles` as QGIS itself lays that table
 * out, so QGIS draws each kind of layer in its own colour and shows names in map tips.
 */

const COLOUR: Record<LayerKind, string> = {
  compute: '31,120,180,255',
  stream: '227,26,28,255',
  imagery: '51,160,44,255',
};

const PREVIEW: Record<LayerKind, string> = { compute: 'name', stream: 'feature_name', imagery: 'address' };

const opts = (o: Record<string, string>) =>
  Object.entries(o)
    .map(([k, v]) => `<Option type="QString" name="${k}" value="${v}"/>`)
    .join('');

function symbolLayer(geometryType: string, colour: string): { type: string; xml: string } {
  const g = geometryType.toUpperCase();
  if (g.includes('POLYGON'))
    return {
      type: 'fill',
      xml: `<layer class="SimpleFill" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
        color: colour.replace(/,255$/, ',90'),
        outline_color: colour,
        outline_style: 'solid',
        outline_width: '0.5',
        outline_width_unit: 'MM',
        style: 'solid',
      })}</Option></layer>`,
    };
  if (g.includes('LINE'))
    return {
      type: 'line',
      xml: `<layer class="SimpleLine" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
        line_color: colour,
        line_style: 'solid',
        line_width: '0.6',
        line_width_unit: 'MM',
      })}</Option></layer>`,
    };
  return {
    type: 'marker',
    xml: `<layer class="SimpleMarker" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
      color: colour,
      name: 'circle',
      outline_color: '255,255,255,255',
      outline_style: 'solid',
      outline_width: '0.3',
      outline_width_unit: 'MM',
      size: '2.6',
      size_unit: 'MM',
    })}</Option></layer>`,
  };
}

/** QML for one layer: single-symbol renderer coloured by kind, preview (map tip) field by kind. */
export function defaultQml(kind: LayerKind, geometryType: string): string {
  const { type, xml } = symbolLayer(geometryType, COLOUR[kind]);
  return (
    `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n` +
    `<qgis version="3.22.0" styleCategories="AllStyleCategories">` +
    `<renderer-v2 type="singleSymbol" forceraster="0" symbollevels="0" enableorderby="0">` +
    `<symbols><symbol type="${type}" name="0" alpha="1" clip_to_extent="1" force_rhr="0">${xml}</symbol></symbols>` +
    `</renderer-v2>` +
    `<previewExpression>"${PREVIEW[kind]}"</previewExpression>` +
    `<layerGeometryType>${type === 'marker' ? 0 : type === 'line' ? 1 : 2}</layerGeometryType>` +
    `</qgis>\n`
  );
}
