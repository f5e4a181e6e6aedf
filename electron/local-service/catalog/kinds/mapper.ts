import type { Geometry } from '../../../../shared/service/geojson';
import type { Cell, Columns, KindEntry, PropertyColumn } from './entry';

/** One property of a feature from its cell, as the kind's entry says. */
function propertyReader(p: PropertyColumn): (cell: Cell | undefined) => unknown {
  if (p.equals !== undefined) return (cell) => cell === p.equals;
  if (p.map) return (cell) => p.map![String(cell)] ?? null;
  if (p.emptyIsNull) return (cell) => (cell === '' || cell === null || cell === undefined ? null : cell);
  return (cell) => cell;
}

/** The parts of a feature a kind's entry gives, for item i (without score and distance). */
export type KindMapper = (i: number) => {
  id: string;
  sourceId: string;
  geometry: Geometry;
  name: string;
  address: string;
  url: string;
  properties: Record<string, unknown>;
};

/**
 * The feature mapper of a kind, made once from its entry: columns looked up and the link
 * template split ahead, so a page of features does no per-item work on the entry itself.
 * `countryName` writes the country column of addresses.
 */
export function kindMapper(
  K: { entry: KindEntry; cols: Columns; lon: Float64Array; lat: Float64Array },
  countryName: (cca2: string) => string,
): KindMapper {
  const { entry: e, cols } = K;
  const idCol = cols[e.id.column]!;
  const nameCol = cols[e.columns.name]!;
  const geometryCol = e.columns.geometry ? cols[e.columns.geometry]! : null;
  const address = e.address.map((c) => ({ col: cols[c]!, isCountry: c === e.columns.country }));
  // "https://x/{ident}/" -> literal pieces and the columns between them.
  const pieces = e.source.url.split(/\{(\w+)\}/);
  const url = pieces.map((piece, k) => (k % 2 ? cols[piece]! : piece));
  const props = e.properties.map((p) => ({ name: p.name, col: cols[p.column]!, read: propertyReader(p) }));
  return (i) => {
    const id = String(idCol[i]);
    const parts: string[] = [];
    for (const a of address) {
      const v = a.isCountry ? countryName(String(a.col[i])) : a.col[i];
      if (v) parts.push(String(v));
    }
    let link = '';
    for (const piece of url) link += typeof piece === 'string' ? piece : String(piece[i]);
    const properties: Record<string, unknown> = {};
    for (const p of props) properties[p.name] = p.read(p.col[i]);
    return {
      id: e.id.prefix + id,
      sourceId: id,
      geometry: (geometryCol?.[i] as Geometry | null) ?? { type: 'Point', coordinates: [K.lon[i]!, K.lat[i]!] },
      name: String(nameCol[i]),
      address: parts.join(', '),
      url: link,
      properties,
    };
  };
}

