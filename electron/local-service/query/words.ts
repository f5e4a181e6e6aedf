import { foldLetters } from '../catalog/text';

/**
 * Grammar words and tokens of questions: the words the reading rules look for. The nouns and
 * adjectives of kinds come from their vocabulary entries (catalog.kinds.lexicon).
 */
export interface Token {
  raw: string;
  w: string;
  /** "_" or ":" when written against the token before it with that between ("admin_level", "addr:street"): one tag key or value. */
  joined?: string;
}

/** Default radii, said in a warning whenever one is used. */
export const NEAR_KM = 50;
export const IN_CITY_KM = 20;

export const UNIT_KM: Record<string, number> = {
  km: 1, kms: 1, kilometer: 1, kilometers: 1, kilometre: 1, kilometres: 1,
  mi: 1.609344, mile: 1.609344, miles: 1.609344,
  m: 0.001, meter: 0.001, meters: 0.001, metre: 0.001, metres: 0.001,
  nmi: 1.852, ft: 0.0003048, foot: 0.0003048, feet: 0.0003048,
  yd: 0.0009144, yds: 0.0009144, yard: 0.0009144, yards: 0.0009144,
};

/** The units read, each by its shortest name ("km", "mi", "m", "nmi", "ft", "yd"): what a refusal of an unknown unit lists. */
export const UNIT_NAMES: readonly string[] = [
  ...Object.entries(UNIT_KM)
    .reduce((by, [name, perKm]) => (by.get(perKm)?.length ?? Infinity) > name.length ? by.set(perKm, name) : by, new Map<number, string>())
    .values(),
];

/**
 * A distance unit at i: km per unit, tokens used and the unit as written ("nautical miles" is
 * two words), else null.
 */
export function unitAt(t: Token[], i: number): { perKm: number; len: number; said: string } | null {
  const w = (k: number) => t[k]?.w ?? '';
  if (w(i) === 'nautical' && (w(i + 1) === 'mile' || w(i + 1) === 'miles'))
    return { perKm: 1.852, len: 2, said: `${t[i]!.raw} ${t[i + 1]!.raw}` };
  const perKm = UNIT_KM[w(i)];
  return perKm === undefined ? null : { perKm, len: 1, said: t[i]!.raw };
}
export const MULTIPLIER: Record<string, number> = {
  k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, mio: 1e6, million: 1e6, millions: 1e6, b: 1e9, bn: 1e9, billion: 1e9,
};
export const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20, fifty: 50, hundred: 100,
};
export const UPLOAD_NOUNS = new Set([
  'site', 'sites', 'point', 'points', 'location', 'locations', 'place', 'places', 'feature', 'features', 'data',
  'file', 'files', 'record', 'records', 'store', 'stores', 'asset', 'assets', 'facility', 'facilities', 'upload',
  'uploads', 'rows', 'stations', 'offices', 'properties', 'targets',
]);
export const DETERMINERS = new Set(['a', 'an', 'any', 'the', 'some', 'one', 'each', 'every']);
/** Words for a population ("over 1000 inhabitants"): an upload's numeric column of one of these names holds it. */
export const POPULATION_WORDS = ['population', 'people', 'inhabitants', 'residents', 'persons'];
/** Words that carry no meaning for the reading: dropped silently. */
/**
 * Nouns for "any such thing" that English puts after a thing's name ("police stations", "recycling
 * facilities", "camping places"): after an OSM preset that is not itself said with them, they add
 * nothing ("recycling spots"; "parking spots" is a phrase of its own, Parking Space, read first).
 * Not "buildings": a school building is building=school, not the school.
 */
export const GENERIC_HEADS = new Set(['station', 'stations', 'facility', 'facilities', 'place', 'places', 'site', 'sites', 'location', 'locations', 'area', 'areas', 'spot', 'spots']);

/**
 * Kinds of area said after a place's name ("in Brugelette municipality", "in Lyon area"): they
 * name what it is, nothing more. The settlement nouns of the catalog ("Chennai city") count too
 * (the reader's `placeHeadAt`).
 */
export const PLACE_HEADS = new Set(['village', 'municipality', 'commune', 'district', 'county', 'province', 'state', 'region', 'borough', 'area']);

export const SILENT = new Set([
  'a', 'an', 'the', 'of', 'which', 'what', 'whats', 'are', 'is', 'show', 'me', 'find', 'list', 'all', 'with', 'that',
  'there', 'and', 'for', 'please', 'give', 'where', 'do', 'does', 'have', 'has', 'to', 'from', 'than', 'get', 'return',
  ...POPULATION_WORDS, 'only', 'those', 'them', 'ones', 'these', 'results',
  'just', 'located', 'situated', 'lie', 'lies', 'any', 'by', 'in', 'world', 'on', 'map', 'can', 'you', 'i', 'see',
  'want', 'need', 'how', 'many', 'number', 'total', 'it', 'they', 'their', 'its', 'be', 'or', 'at', 'each', 'every',
  'now', 'then', 'also', 'whose', 'having', 'more', 'less', 'most', 'least', 'sized', 'size', ',',
  // Polite and question forms: "could you please tell me which …", "I would like to see …".
  'could', 'would', 'will', 'kindly', 'tell', 'like', 'id', 'im', 'looking', 'display', 'let', 'know', 'us', 'we',
  'our', 'thanks', 'thank', 'hi', 'hello', 'should', 'am', 'was', 'were', 'been', 'being', 'so', 'currently',
]);

export const NOT_PLACES = new Set([...SILENT, 'me', 'us', 'here', 'home', 'you', 'my', 'our', 'we', 'this', 'that']);

export function tokenize(query: string): Token[] {
  const text = query
    // "1,000,000" is one number; "10,100,20,110" (a box) is four.
    .replace(/(?<![.\d]|\d,)\d{1,3}(?:,\d{3})+\b(?![,.]\d)/g, (m) => m.replace(/,/g, ''))
    .replace(/['\u2019`]/g, '');
  const out: Token[] = [];
  let end = -1;
  // A minus sign counts only before a number that follows no letter or digit ("-122.5", not "100-500").
  for (const m of text.matchAll(/(?<![\p{L}\p{N}])-\d+(?:\.\d+)?|\d+(?:\.\d+)?|[\p{L}\p{N}\p{M}]+|!=|[,<>=*]/gu)) {
    const raw = m[0].normalize('NFC');
    const tok: Token = { raw, w: foldLetters(raw) };
    if (m.index === end + 1 && /^[_:]$/.test(text[end]!) && /^[\p{L}\p{N}]/u.test(raw) && out.length && /^[\p{L}\p{N}]/u.test(out.at(-1)!.raw)) tok.joined = text[end]!;
    out.push(tok);
    end = m.index + m[0].length;
  }
  return out;
}

/** Number at i (digits or a number word) with an optional multiplier: [value, tokens used]. */
export function numberAt(t: Token[], i: number, allowMultiplier: boolean): [number, number] | null {
  const w = (k: number) => t[k]?.w ?? '';
  let v: number;
  if (/^\d/.test(w(i))) v = Number(w(i));
  else if (NUMBER_WORDS[w(i)] !== undefined) v = NUMBER_WORDS[w(i)]!;
  else return null;
  if (allowMultiplier && MULTIPLIER[w(i + 1)] !== undefined) return [v * MULTIPLIER[w(i + 1)]!, 2];
  return [v, 1];
}

/** A signed decimal number at i ("-122.5", "45"): its value, else null. */
export function signedAt(t: Token[], i: number): number | null {
  const w = t[i]?.w ?? '';
  return /^-?\d+(?:\.\d+)?$/.test(w) ? Number(w) : null;
}

/** A word written in the plural ("sites"): "nearest site" asks for one. */
export const isPlural = (word: string) => /s$/.test(word);

/**
 * Words the reading rules act on besides the kinds' nouns and adjectives: a word after "in" or
 * "near" that is none of these and no place is an unknown place, not an ignorable word.
 */
export const RULE_WORDS = new Set([
  ...UPLOAD_NOUNS, ...DETERMINERS,
  'my', 'our', 'uploaded', 'previous', 'earlier', 'per', 'over', 'under', 'above', 'below', 'between', 'within', 'inside',
  'near', 'around', 'nearby', 'close', 'next', 'nearest', 'closest', 'top', 'largest', 'biggest', 'smallest', 'sort',
  'sorted', 'order', 'ordered', 'rank', 'ranked', 'distance', 'less', 'fewer', 'more', 'greater', 'exceeding', 'least',
  'most', 'capita', 'density', 'count', 'tally', 'total', 'first', 'order', 'terms',
]);

/**
 * Words no vocabulary phrase may start with: the grammar of questions reads them (relations,
 * conditions, units, numbers). Words for uploads ("sites", "stations") stay free for layers.
 */
export const isGrammarWord = (word: string): boolean =>
  SILENT.has(word) || (RULE_WORDS.has(word) && !UPLOAD_NOUNS.has(word)) || UNIT_KM[word] !== undefined || /^-?\d/.test(word) ||
  ['open', 'operated', 'along', 'outside', 'crossing', 'intersecting', 'over', 'me', 'here', 'near'].includes(word);
