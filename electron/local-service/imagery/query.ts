import { around, distance } from 'geokdbush';
import type { Catalog } from '../catalog/catalog';
import { normalizeName } from '../catalog/text';
import type { Snapshot } from './snapshot';
import { foldText, type Region, type RegionTable } from './geocoder';
import type { ImageryStorage } from './storage';
import type { PhotoRow, Sighting } from './store';
import type { ClassVocabulary, NamedClass } from './perception/vocabulary';
import { readTextMask } from './read-text';

/**
 * Query words that name nothing in a catalog of photos: function words and the words for
 * photos themselves ("photos of Paris" searches for Paris).
 */
const STOP_WORDS = new Set([
  'a', 'an', 'the', 'of', 'in', 'at', 'on', 'near', 'around', 'for', 'with', 'and', 'or', 'to', 'from', 'by',
  'show', 'me', 'find', 'all', 'any', 'some', 'is', 'are', 'there', 'where', 'what', 'which',
  'photo', 'photos', 'picture', 'pictures', 'image', 'images', 'imagery', 'capture', 'captures',
  'showing', 'shown', 'seen', 'containing', 'visible',
]);

export interface QueryWord {
  /** As written in the query (feature_name repeats it). */
  text: string;
  folded: string;
}

export interface ParsedQuery {
  /** "*" lists the whole catalog. */
  all: boolean;
  words: QueryWord[];
  /** Folded text, for finding country names. */
  folded: string;
}

export function parseQuery(query: string): ParsedQuery {
  const q = query.normalize('NFC').trim();
  if (q === '*') return { all: true, words: [], folded: '*' };
  const seen = new Set<string>();
  const words: QueryWord[] = [];
  for (const piece of q.split(/[^\p{L}\p{N}]+/u)) {
    if (!piece) continue;
    const folded = foldText(piece);
    if (!folded || STOP_WORDS.has(folded) || seen.has(folded)) continue;
    seen.add(folded);
    words.push({ text: piece, folded });
  }
  return { all: false, words, folded: q.split(/[^\p{L}\p{N}]+/u).map(foldText).filter(Boolean).join(' ') };
}

/** The first country the query names (longest name first: "south africa" before "africa"). */
export function namedRegion(parsed: ParsedQuery, regions: RegionTable): Region | undefined {
  const tokens = parsed.folded.split(' ');
  for (let n = Math.min(5, tokens.length); n >= 1; n--) {
    for (let i = 0; i + n <= tokens.length; i++) {
      const r = regions.byName.get(tokens.slice(i, i + n).join(' '));
      if (r) return r;
    }
  }
  return undefined;
}

/** A city a search named, that records are measured from. */
export interface NamedPlace {
  lon: number;
  lat: number;
  label: string;
}

/**
 * The first city the query names (longest phrase first, the most important of a name), from the
 * service's catalog. Only a phrase written with a capital ("Lisbon", "Rio de Janeiro") counts:
 * searches are mostly about what is in the picture, and "street" or "church" are also towns.
 */
export function namedCity(query: string, catalog: Catalog | undefined): NamedPlace | undefined {
  const parsed = parseQuery(query);
  if (!catalog || parsed.all) return undefined;
  const pieces = query.normalize('NFC').split(/[^\p{L}\p{N}]+/u).filter((x) => x && foldText(x));
  const tokens = pieces.map(foldText);
  for (let n = Math.min(4, tokens.length); n >= 1; n--) {
    for (let i = 0; i + n <= tokens.length; i++) {
      if (!/^\p{Lu}/u.test(pieces[i]!) || STOP_WORDS.has(tokens[i]!)) continue;
      const c = catalog.cityByName.get(normalizeName(tokens.slice(i, i + n).join(' ')))?.[0];
      if (c !== undefined) return { lon: catalog.cities.lon[c]!, lat: catalog.cities.lat[c]!, label: catalog.cities.cols.name[c]! };
    }
  }
  return undefined;
}

/**
 * Snapshot positions of the photos matching at least one word, with the words each matched (bit i
 * = word i): the photo's own words, and the text read in it (`readTextMask`: case and spaces
 * ignored, several content words as one phrase).
 */
export async function matchWords(
  store: ImageryStorage,
  snap: Snapshot,
  words: QueryWord[],
  isPlace?: (folded: string) => boolean,
): Promise<Map<number, number>> {
  const hits = new Map<number, number>();
  if (!words.length) return hits;
  const some = words.slice(0, 30);
  const matched = await Promise.all(some.map((w) => store.match(w.folded, false)));
  matched.forEach((rowids, bit) => {
    for (const rowid of rowids) {
      const i = snap.indexOf.get(rowid);
      if (i === undefined) continue;
      hits.set(i, (hits.get(i) ?? 0) | (1 << bit));
    }
  });
  for (const [rowid, lines] of await store.textLines(Array.from(snap.rowids))) {
    const i = snap.indexOf.get(rowid);
    const mask = i === undefined ? 0 : readTextMask(lines, some, isPlace);
    if (mask) hits.set(i!, (hits.get(i!) ?? 0) | mask);
  }
  return hits;
}

/** Adds the photos the detector saw a class in to `hits`, as matching the words the class took. */
async function addSeen(store: ImageryStorage, snap: Snapshot, hits: Map<number, number>, words: QueryWord[], classes?: ClassVocabulary): Promise<void> {
  if (!classes) return;
  const reading = classes.read(words);
  for (const [k, c] of reading.classes.entries()) {
    const mask = reading.took[k]!.reduce((m, i) => m | (1 << i), 0);
    for (const rowid of (await store.seenWith(c.label)).keys()) {
      const i = snap.indexOf.get(rowid);
      if (i !== undefined) hits.set(i, (hits.get(i) ?? 0) | mask);
    }
  }
}

export function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n++;
  return n;
}

export function matchedText(words: QueryWord[], mask: number): string {
  return words.filter((_, bit) => mask & (1 << bit)).map((w) => w.text).join(' ');
}

/** Listing order: more query words matched first, then newest capture, then id (stable paging). */
function listingOrder(snap: Snapshot, score: (i: number) => number) {
  return (a: number, b: number) =>
    score(b) - score(a) ||
    (snap.takenAt[b]! < snap.takenAt[a]! ? -1 : snap.takenAt[b]! > snap.takenAt[a]! ? 1 : 0) ||
    (snap.ids[a]! < snap.ids[b]! ? -1 : 1);
}

export interface SearchResult {
  total: number;
  rows: PhotoRow[];
  region: Region | null;
  /** Metres from the city the search named, per row id; empty when it named none. */
  distances: Map<string, number>;
}

/** POST /search: text matching with a 1-based page of `limit` records. */
export async function searchPhotos(
  store: ImageryStorage,
  snap: Snapshot,
  regions: RegionTable,
  query: string,
  limit: number,
  page: number,
  catalog?: Catalog,
  seen?: { classes?: ClassVocabulary; isPlace?: (folded: string) => boolean },
): Promise<SearchResult> {
  const parsed = parseQuery(query);
  const named = parsed.all ? undefined : namedRegion(parsed, regions);
  const place = namedCity(query, catalog);
  const km = (i: number) => (place ? distance(place.lon, place.lat, snap.lon[i]!, snap.lat[i]!) : 0);
  let hits: Map<number, number>;
  if (parsed.all) {
    hits = new Map();
    for (let i = 0; i < snap.rowids.length; i++) hits.set(i, 0);
  } else {
    hits = await matchWords(store, snap, parsed.words, seen?.isPlace);
    // Words naming a detector class find the photos it was seen in ("cars").
    await addSeen(store, snap, hits, parsed.words.slice(0, 30), seen?.classes);
  }
  // Imagery records carry a still image URL: videos are found through /v1/stream only.
  let candidates = [...hits.keys()].filter((i) => !snap.isVideo[i]);
  if (named) candidates = candidates.filter((i) => snap.regionId[i] === named.id);
  // With a named city, nearest first among records matching as many words.
  if (place) candidates.sort((a, b) => popcount(hits.get(b) ?? 0) - popcount(hits.get(a) ?? 0) || km(a) - km(b));
  else candidates.sort(listingOrder(snap, (i) => popcount(hits.get(i) ?? 0)));

  let region: Region | null = named ?? null;
  if (!region && candidates.length) {
    const first = snap.regionId[candidates[0]!];
    if (first && candidates.every((i) => snap.regionId[i] === first)) region = regions.get(first) ?? null;
  }
  const start = (page - 1) * limit;
  const pageIdx = candidates.slice(start, start + limit);
  const distances = new Map<string, number>();
  if (place) for (const i of pageIdx) distances.set(snap.ids[i]!, Math.round(km(i) * 10_000) / 10);
  return { total: candidates.length, rows: await store.rows(pageIdx.map((i) => snap.rowids[i]!)), region, distances };
}

/** Radius around the asked positions: observations farther away are not listed. */
export const STREAM_RADIUS_KM = 50;

export interface StreamParams {
  query: string;
  limit: number;
  year?: number;
  region?: Region;
  points?: { latitude: number; longitude: number }[];
  /** The detector's classes, when photos are looked at: query words naming one match what is seen. */
  classes?: ClassVocabulary;
  /** Whether a folded word names a place (a place is not an artifact the detector lacks). */
  isPlace?: (folded: string) => boolean;
}

/** How a stream query was read against what the detector can see. */
export interface StreamPerception {
  /** Classes the query named; their photos are those the detector saw them in. */
  classes: NamedClass[];
  /** Query words that name neither a class nor a place, as written: the detector cannot see them. */
  unseen: string[];
  /** Said when some words name nothing the detector can see. */
  message: string | null;
}

export interface StreamResult {
  hits: StreamHit[];
  perception: StreamPerception | null;
  /** Set when observations were limited to a radius of the positions. */
  radiusKm: number | null;
}

export interface StreamHit {
  row: PhotoRow;
  featureName: string;
  /** Metres to the nearest requested point. */
  distanceMeters: number | null;
  /** seen: the detector saw the class; text: the words are in its keywords or captions; scope: its place alone. */
  match: 'seen' | 'text' | 'scope';
  /** What the detector saw of the asked classes, best first (seen matches only). */
  seen: Sighting[];
}

const quoted = (words: string[]) => words.map((w) => `"${w}"`).join(', ');

function perceptionMessage(classes: NamedClass[], unseen: string[], found: number, known: string[]): string | null {
  if (!unseen.length) return null;
  const has = unseen.length === 1 ? 'has no class for' : 'has no class for any of';
  if (classes.length) return `The photo detector ${has} ${quoted(unseen)}; photos are listed by what it saw: ${classes.map((c) => c.label).join(', ')}.`;
  if (!found)
    return `The photo detector ${has} ${quoted(unseen)}, and no photo's keywords, captions or text read in it mention it: nothing is listed. The classes it knows: ${known.join(', ')}.`;
  return `The photo detector ${has} ${quoted(unseen)}: these photos are listed because their keywords, captions or text read in them mention it, not because it was seen in them.`;
}

/** Feature name of captures found by scope alone (no query word names anything in it). */
export const SCOPE_FEATURE_NAME = 'photo';

/**
 * POST /v1/stream. Year and region_id filter; a capture matches when its text holds at least one
 * query word. When no word matches anything in scope, a region or positions alone list their
 * captures. Positions always limit the list to STREAM_RADIUS_KM around them (never every photo on
 * earth) and rank by great-circle distance to the nearest point.
 */
export async function streamPhotos(store: ImageryStorage, snap: Snapshot, p: StreamParams): Promise<StreamResult> {
  const n = snap.rowids.length;
  const inScope = (i: number) =>
    (p.year === undefined || snap.year[i] === p.year) && (!p.region || snap.regionId[i] === p.region.id);
  const parsed = parseQuery(p.query);
  const reading = p.classes && !parsed.all ? p.classes.read(parsed.words, p.isPlace) : null;
  const classes = reading?.classes ?? [];
  const textWords = reading ? reading.rest.map((k) => parsed.words[k]!) : parsed.words;
  const mask = new Map<number, number>();
  if (!parsed.all) for (const [i, m] of await matchWords(store, snap, textWords, p.isPlace)) if (inScope(i)) mask.set(i, m);
  // Photos showing an asked class, with what was seen of those classes.
  const seen = new Map<number, Sighting[]>();
  if (classes.length) {
    for (const c of classes) {
      for (const [rowid, d] of await store.seenWith(c.label)) {
        const i = snap.indexOf.get(rowid);
        if (i === undefined || !inScope(i)) continue;
        seen.set(i, [...(seen.get(i) ?? []), d].sort((a, b) => b.score - a.score));
      }
    }
    // Other words that some seen photo holds (a place, a keyword) narrow the seen photos to those.
    if ([...seen.keys()].some((i) => mask.has(i))) for (const i of [...seen.keys()]) if (!mask.has(i)) seen.delete(i);
  }
  // Years and places are not things to see; any other word no class took is one the detector lacks.
  const unseen = reading ? textWords.filter((w) => !/^\d+$/.test(w.folded) && !p.isPlace?.(w.folded)).map((w) => w.text) : [];
  const bySeen = classes.length > 0;
  // A scope lists its photos only when the words asked for nothing the detector lacks: "wind
  // turbines" in a region is refused as it is without one, never answered with every photo there.
  const byScope = !bySeen && (parsed.all || (mask.size === 0 && !unseen.length && (!!p.points?.length || !!p.region)));
  const candidate = bySeen ? (i: number) => seen.has(i) : byScope ? inScope : (i: number) => mask.has(i);
  const nameOf = (i: number) =>
    bySeen ? seen.get(i)![0]!.label : byScope ? SCOPE_FEATURE_NAME : matchedText(textWords, mask.get(i) ?? 0);
  const score = (i: number) => (bySeen ? seen.get(i)![0]!.score : popcount(mask.get(i) ?? 0));

  let picked: { i: number; km: number | null }[];
  // Positions mean "near here": whatever the words, nothing beyond the radius is listed.
  const radiusKm = p.points?.length ? STREAM_RADIUS_KM : null;
  if (p.points?.length && snap.kd) {
    // The global top-k by nearest point is within the union of each point's own top-k.
    const best = new Map<number, number>();
    for (const pt of p.points) {
      for (const i of around(snap.kd, pt.longitude, pt.latitude, p.limit, radiusKm ?? Infinity, candidate)) {
        const km = distance(pt.longitude, pt.latitude, snap.lon[i]!, snap.lat[i]!);
        if (km < (best.get(i) ?? Infinity)) best.set(i, km);
      }
    }
    picked = [...best.entries()]
      .sort((a, b) => a[1] - b[1] || (snap.ids[a[0]]! < snap.ids[b[0]]! ? -1 : 1))
      .slice(0, p.limit)
      .map(([i, km]) => ({ i, km }));
  } else {
    const list: number[] = [];
    if (bySeen) list.push(...seen.keys());
    else if (byScope) {
      for (let i = 0; i < n; i++) if (inScope(i)) list.push(i);
    } else for (const i of mask.keys()) list.push(i);
    list.sort(listingOrder(snap, score));
    picked = list.slice(0, p.limit).map((i) => ({ i, km: null }));
  }
  const rows = new Map((await store.rows(picked.map((x) => snap.rowids[x.i]!))).map((r) => [r.rowid, r]));
  // Every box of the asked classes in the listed photos (the match itself took the best one).
  if (bySeen) {
    const asked = new Set(classes.map((c) => c.label));
    for (const [rowid, list] of await store.sightings(picked.map((x) => snap.rowids[x.i]!))) {
      const i = snap.indexOf.get(rowid);
      if (i !== undefined) seen.set(i, list.filter((d) => asked.has(d.label)));
    }
  }
  const hits: StreamHit[] = [];
  for (const { i, km } of picked) {
    const row = rows.get(snap.rowids[i]!);
    if (!row) continue; // removed by a scan since the snapshot was taken
    hits.push({
      row,
      featureName: nameOf(i),
      distanceMeters: km === null ? null : Math.round(km * 10_000) / 10,
      match: bySeen ? 'seen' : byScope ? 'scope' : 'text',
      seen: seen.get(i) ?? [],
    });
  }
  const perception = reading ? { classes, unseen, message: perceptionMessage(classes, unseen, hits.length, p.classes!.labels()) } : null;
  return { hits, radiusKm, perception };
}
