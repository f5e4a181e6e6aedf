/**
 * How each exported layer is drawn (colour, classes, labels), decided once for a QGIS project and
 * for a GeoPackage exported alone, and written as each table's default in `layer_styles`, as QGIS's
 * own "Package layers" does, so a GeoPackage dragged into QGIS draws as the map.
 */
import Database from 'better-sqlite3';
import { CATEGORY_COLOURS } from '../../shared/map/symbology';
import { STYLES_TABLE } from './gpkg';
import { labelingXml, layerQml, NAME_FIELD, rendererXml, symbolType, type LayerStyle } from './qgis-style';
import type { ExportedLayer, ExportLayer } from './types';

/** Colour of a layer the map gave none for: the map's own result colour. */
export const DEFAULT_LAYER_COLOUR = '#e8710a';
/** Colours of further answers the map gave none for, after the first's: each its own. */
export const ANSWER_COLOURS: readonly string[] = CATEGORY_COLOURS;

export const isAnswer = (l: ExportLayer) => (l.role ?? 'answer') === 'answer';

export interface LayerLook {
  style: LayerStyle;
  /** The field named on the map, or null (names on answers only). */
  label: string | null;
}

/**
 * Each written layer's look: the style the map gave it, or its own colour (answers each in one of
 * their own). Names on the answers only: an upload or data layer beside them would name each
 * place again; a heatmap names nothing, as on the map.
 */
export function layerLooks(
  layers: readonly ExportLayer[],
  exported: readonly ExportedLayer[],
  styles: readonly (LayerStyle | null | undefined)[] | undefined,
): LayerLook[] {
  let answer = 0;
  return exported.map((l, i) => {
    const layer = layers[i]!;
    const colour = layer.colour ?? (isAnswer(layer) ? ANSWER_COLOURS[answer++ % ANSWER_COLOURS.length]! : DEFAULT_LAYER_COLOUR);
    const style = tableStyle(styles?.[i] ?? { by: 'layer', colour }, l);
    return { style, label: isAnswer(layer) && style.by !== 'heatmap' ? NAME_FIELD[l.kind] : null };
  });
}

/**
 * The map's style in the table's terms: a column by its column name, ranks as feature ids (the
 * writer numbers features from 1 in the order given, the service's order). A column the table
 * does not hold on its own draws in the layer's colour.
 */
function tableStyle(style: LayerStyle, layer: ExportedLayer): LayerStyle {
  if (style.by !== 'column') return style;
  const column = layer.columns?.[style.column];
  return column ? { ...style, column } : { by: 'layer', colour: style.colour };
}

/**
 * Makes each table's look its default in `layer_styles`. A table of several kinds of geometry
 * (`mixed`, drawn by QGIS as one layer per kind) keeps the plain default the writer gave it, which
 * suits every kind.
 */
export function setDefaultStyles(gpkg: string, tables: readonly { table: string; geometryType: string; look: LayerLook; mixed: boolean }[]): void {
  const db = new Database(gpkg);
  try {
    const set = db.prepare(`UPDATE ${STYLES_TABLE} SET styleQML = ? WHERE f_table_name = ? AND useAsDefault = 1`);
    db.transaction(() => {
      for (const { table, geometryType, look, mixed } of tables) {
        if (mixed) continue;
        const labels = look.label ? labelingXml(look.label) : null;
        set.run(layerQml(rendererXml(look.style, symbolType(geometryType)), labels, geometryType, look.label), table);
      }
    })();
  } finally {
    db.close();
  }
}
