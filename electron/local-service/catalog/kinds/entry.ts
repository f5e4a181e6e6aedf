/**
 * A vocabulary entry: everything the engine knows about one kind of feature, as data. The
 * catalog builds from these entries the parser's lexicon, the kind lookup, the feature mapper,
 * the labels, the score rule and the storage codes; the query code names no kind.
 */

/** A column value of one item (a cell of the kind's source data). */
export type Cell = string | number | boolean | null | object;
/** A kind's source data as columns of equal length, one cell per item. */
export type Columns = Record<string, readonly Cell[]>;

/** Nouns naming the kind, or a part of it that a modifier picks ("capitals": cities with capital). */
export interface Noun {
  one: string[];
  many: string[];
  /** How a class named by this noun is said ("capitals"); the kind's label when absent. */
  label?: string;
  /** Modifier values the noun implies. */
  sets?: Record<string, boolean>;
}

/** Words that set a modifier to one value, and how that value is said ("large"). */
export interface ModifierWords {
  value: boolean;
  label: string;
  words: string[];
}

/**
 * A predicate over one column: an item has the modifier when its `column` equals `equals`. A
 * value false keeps the items without it ("regional airports": large = 0).
 */
export interface Modifier {
  /** Key of the modifier in a reading ("large", "capital"). */
  key: string;
  column: string;
  equals: string | number;
  /** What its words are about, for messages ("size"). */
  topic?: string;
  /** Adjectives that set it ("large", "major"); nouns may set it too (`Noun.sets`). */
  words?: ModifierWords[];
}

/** A feature property read from a column: as it is, mapped, or whether it equals a value. */
export interface PropertyColumn {
  name: string;
  column: string;
  /** Values by the cell's text ("1": "large"). */
  map?: Record<string, string | number | boolean>;
  /** The property is whether the cell equals this. */
  equals?: string | number;
  /** An empty cell becomes null. */
  emptyIsNull?: boolean;
}

export interface KindEntry {
  /** Stable name: `kind` of features and of saved result sets. */
  name: string;
  /** Stable storage code of saved result sets (one byte); never reused for another kind. */
  code: number;
  /** How a number of items is said. */
  label: { one: string; many: string };
  nouns: Noun[];
  modifiers?: Modifier[];
  source: {
    name: string;
    licence: string;
    /** Link of one item: `{column}` is replaced by the item's cell. */
    url: string;
    /** File of the catalog folder (gzipped JSON) and its layout; absent for data given in code (tests). */
    file?: string;
    layout?: 'columns' | 'rows';
  };
  /** Feature ids: prefix and the column of the source's own id (also `source_id`). */
  id: { prefix: string; column: string };
  columns: {
    lon: string;
    lat: string;
    /** Coordinates are stored as integers of 1/scale degree. */
    scale?: number;
    name: string;
    /** ISO 3166-1 alpha-2 of each item: country filters, aggregates, addresses. */
    country: string;
    population?: string;
    /** A GeoJSON geometry of each item; its point otherwise. */
    geometry?: string;
  };
  /**
   * Columns of the address, in order; the country column is written as the country's name.
   * Only columns of names: a code the catalog has no name for (GeoNames admin1 "40", ISO 3166-2
   * "FR-ARA") reads as noise in "Tokyo, 40, Japan", and stays a property instead.
   */
  address: string[];
  /** Properties of each feature after the spec's fields. */
  properties: PropertyColumn[];
  /** Score without a distance: by population (log-scaled), or by a column's value. */
  score?: { population: true } | { column: string; map: Record<string, number> };
  /** Order of a result without any asked for (the catalog's population order otherwise). */
  order?: { column: string; desc?: boolean }[];
  /** The subject of a question that names none (and sends no files). */
  fallback?: boolean;
}
