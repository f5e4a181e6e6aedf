import { BASEMAP_PALETTES, STREET_PALETTES, type BasemapTheme, type StreetPalette } from '../../shared/basemap/palettes';
import type { BasemapTable } from './offline-basemap';
import { qgisColour, xmlText } from './qgis-style';

/**
 * QGIS styles of the offline basemap tables, in the map's colours of either theme: Natural Earth land and
 * dashed borders over the water (the project's background), the street basemap's areas, roads
 * cased in grey, waterways and rail, and place names in a white halo.
 */

/** The map's water: the project's background colour. */
export const waterColour = (theme: BasemapTheme = 'light'): string => STREET_PALETTES[theme].water;

const opts = (o: Record<string, string>) =>
  Object.entries(o)
    .map(([k, v]) => `<Option type="QString" name="${k}" value="${xmlText(v)}"/>`)
    .join('');

const fillLayer = (fill: string, outline: string | null, width = 0.2) =>
  `<layer class="SimpleFill" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
    color: qgisColour(fill),
    outline_color: qgisColour(outline ?? fill),
    outline_style: outline ? 'solid' : 'no',
    outline_width: String(width),
    outline_width_unit: 'MM',
    style: 'solid',
  })}</Option></layer>`;

const lineLayer = (colour: string, width: number, dash = false, pass = 0) =>
  `<layer class="SimpleLine" enabled="1" locked="0" pass="${pass}"><Option type="Map">${opts({
    line_color: qgisColour(colour),
    line_style: 'solid',
    line_width: String(width),
    line_width_unit: 'MM',
    capstyle: 'round',
    joinstyle: 'round',
    use_custom_dash: dash ? '1' : '0',
    customdash: '1.2;0.8',
    customdash_unit: 'MM',
  })}</Option></layer>`;

const dotLayer = (colour: string, size: number) =>
  `<layer class="SimpleMarker" enabled="1" locked="0" pass="0"><Option type="Map">${opts({
    color: qgisColour(colour),
    name: 'circle',
    outline_color: '255,255,255,255',
    outline_style: 'solid',
    outline_width: '0.2',
    outline_width_unit: 'MM',
    size: String(size),
    size_unit: 'MM',
  })}</Option></layer>`;

const symbol = (type: 'fill' | 'line' | 'marker', name: string, layers: string) =>
  `<symbol type="${type}" name="${xmlText(name)}" alpha="1" clip_to_extent="1" force_rhr="0">${layers}</symbol>`;

const HEAD = `forceraster="0" enableorderby="0" referencescale="-1"`;

function single(sym: string): string {
  return `<renderer-v2 type="singleSymbol" symbollevels="0" ${HEAD}><symbols>${sym.replace(/name="[^"]*"/, 'name="0"')}</symbols></renderer-v2>`;
}

/** A category per `class` value; symbol levels on where roads draw their casings below every fill. */
function byClass(cats: [string, string, string][], levels: boolean): string {
  const c = cats.map(([value, label], i) => `<category symbol="${i}" value="${xmlText(value)}" label="${xmlText(label)}" render="true"/>`).join('');
  const s = cats.map(([, , sym], i) => sym.replace(/name="[^"]*"/, `name="${i}"`)).join('');
  return `<renderer-v2 type="categorizedSymbol" attr="class" symbollevels="${levels ? 1 : 0}" ${HEAD}><categories>${c}</categories><symbols>${s}</symbols></renderer-v2>`;
}

const areas = (STREET: StreetPalette): [string, string, string | null][] => [
  ['landuse:residential', STREET.residential, null],
  ['landuse:industrial', STREET.industrial, null],
  ['landuse:grass', STREET.grass, null],
  ['landuse:park', STREET.park, null],
  ['landuse:wood', STREET.wood, null],
  ['water:water', STREET.water, null],
  ['buildings:building', STREET.building, STREET.buildingEdge],
];

// Widths in millimetres at about the map's zoom 16 (its pixel widths at 96 dpi).
const roads = (STREET: StreetPalette): [string, string, number][] => [
  ['roads:path', STREET.path, 0.35],
  ['roads:service', STREET.street, 0.9],
  ['roads:street', STREET.street, 1.5],
  ['roads:secondary', STREET.secondary, 1.8],
  ['roads:primary', STREET.primary, 2.1],
  ['roads:motorway', STREET.motorway, 2.4],
];

/** Labels by `name`: text in a halo of the theme (dark on white in light), larger places first where they would overlap. */
export function placeLabelsXml(size: number, bold: boolean, theme: BasemapTheme = 'light'): string {
  const STREET = STREET_PALETTES[theme];
  return (
    `<labeling type="simple"><settings calloutType="simple">` +
    `<text-style fieldName="name" isExpression="0" fontSize="${size}" fontSizeUnit="Point" textColor="${qgisColour(STREET.label)}" textOpacity="1" fontFamily="Sans Serif" fontWeight="${bold ? 75 : 50}" namedStyle="${bold ? 'Bold' : 'Regular'}" multilineHeight="1" blendMode="0" allowHtml="0">` +
    `<text-buffer bufferDraw="1" bufferSize="0.7" bufferSizeUnits="MM" bufferColor="${qgisColour(STREET.halo)}" bufferOpacity="1" bufferNoFill="1" bufferJoinStyle="128" bufferBlendMode="0"/>` +
    `</text-style>` +
    `<placement placement="1" dist="1" distUnits="MM" offsetType="0" quadOffset="1" priority="3"/>` +
    `<rendering obstacle="0" drawLabels="1" fontLimitPixelSize="0" displayAll="0" upsidedownLabels="0" scaleVisibility="0" zIndex="-1"/>` +
    `</settings></labeling>`
  );
}

/** The renderer of a basemap table, and its labels where it names places. */
export function basemapStyle(role: BasemapTable['role'], theme: BasemapTheme = 'light'): { renderer: string; labels: string | null } {
  const LAND = BASEMAP_PALETTES[theme];
  const STREET = STREET_PALETTES[theme];
  switch (role) {
    case 'land':
      return { renderer: single(symbol('fill', '0', fillLayer(LAND.land, LAND.coast, 0.16))), labels: null };
    case 'borders':
      return { renderer: single(symbol('line', '0', lineLayer(LAND.borders, 0.2, true))), labels: null };
    case 'places':
      return { renderer: single(symbol('marker', '0', dotLayer(STREET.label, 1.2))), labels: placeLabelsXml(8, false, theme) };
    case 'street-places':
      // Names only, as the map draws them: a transparent dot holds each label's place.
      return { renderer: single(symbol('marker', '0', dotLayer('#ffffff00', 0.1))), labels: placeLabelsXml(10, true, theme) };
    case 'street-areas':
      return { renderer: byClass(areas(STREET).map(([v, fill, edge]) => [v, v.split(':')[1]!, symbol('fill', v, fillLayer(fill, edge))]), false), labels: null };
    case 'street-lines': {
      const ROADS = roads(STREET);
      const lines = ROADS.map(([v, colour, w], i): [string, string, string] => [
        v,
        v.split(':')[1]!,
        symbol('line', v, (v === 'roads:path' ? '' : lineLayer(STREET.casing, w + 0.5, false, 0)) + lineLayer(colour, w, v === 'roads:path', i + 1)),
      ]);
      return {
        renderer: byClass(
          [
            ['waterway:river', 'river', symbol('line', 'r', lineLayer(STREET.water, 2.6, false, 0))],
            ['waterway:stream', 'stream', symbol('line', 's', lineLayer(STREET.water, 0.8, false, 0))],
            ...lines,
            ['rail:rail', 'rail', symbol('line', 'rail', lineLayer(STREET.rail, 0.4, true, ROADS.length + 1))],
          ],
          true,
        ),
        labels: null,
      };
    }
  }
}

/** A basemap table's style as QML, its default in the GeoPackage's layer_styles. */
export function basemapQml(t: Pick<BasemapTable, 'role' | 'geometryType'>, theme: BasemapTheme = 'light'): string {
  const { renderer, labels } = basemapStyle(t.role, theme);
  const type = t.geometryType === 'POINT' ? 0 : t.geometryType === 'MULTILINESTRING' ? 1 : 2;
  return (
    `<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n` +
    `<qgis version="3.22.0" styleCategories="AllStyleCategories" labelsEnabled="${labels ? 1 : 0}">` +
    renderer +
    (labels ?? '') +
    `<layerGeometryType>${type}</layerGeometryType></qgis>\n`
  );
}
