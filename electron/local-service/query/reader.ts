import type { Catalog, Kind } from '../catalog/catalog';
import { formatInt } from '../catalog/format';
import type { AdjectiveReading } from '../catalog/kinds/registry';
import { UPLOADS } from '../catalog/kinds/uploads';
import { normalizeName } from '../catalog/text';
import { narrowSelection, type Selection, type Vocabulary } from '../vocabulary/vocabulary';
import type { BBox } from './bbox';
import { trailingPopulationFilter } from './filters';
import { createPlaceReader, type Place } from './places';
import type { Condition, Plan, RefPoint, Reference, Warning } from './plan';
import {
  DETERMINERS, GENERIC_HEADS, isGrammarWord, PLACE_HEADS, isPlural, NOT_PLACES, numberAt, RULE_WORDS, signedAt, SILENT, tokenize, UNIT_KM, unitAt, UPLOAD_NOUNS,
} from './words';
import { parseCoord, rewritePaste } from '../../../shared/coords';
import type { TypoReader } from './typos';
import type { UploadValue } from './upload-words';
import type { SaidDistance } from './units';
import type { PlanPart } from './refusal';
import type { DetectorClasses } from './sources/detections';

export interface ParseContext {
  catalog: Catalog;
  /** Request `coordinates`, by name. */
  coordinates: { name: string; latitude: number; longitude: number }[];
  /** Names of uploaded files (with extension). */
  fileNames: string[];
  /** Subject of the saved query when continuing one. */
  savedSubject?: Kind | null;
  /**
   * What the continued question measured from ("airports within 100 km of Paris"): a distance
   * with no reference of its own in the follow-up ("only the ones within 30 km") is measured from it.
   */
  savedReference?: Reference;
  /** Words of the data layers, presets and brands (absent: kinds only). */
  vocabulary?: Vocabulary;
  /** One-word values of uploaded columns ("open"), by folded spelling. */
  uploadValues?: ReadonlyMap<string, UploadValue>;
  /** Uploaded columns of numbers ("capacity"), by folded name: what "by capacity" ranks by. */
  uploadNumeric?: ReadonlyMap<string, string[]>;
  /** Close readings of misspelt words (absent: a misspelt word is not read). */
  typos?: TypoReader;
  /** The map view the question was asked from (`view_bbox`): "in the current view", "here". */
  view?: BBox;
  /** The photo detector's classes (absent: no photos are looked at here). */
  detections?: DetectorClasses;
}

const fmt = formatInt;
const POSITION = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6, useGrouping: false });
const UPLOAD_CLASS = { type: 'class', kind: UPLOADS.name, label: UPLOADS.label.many } as const;
/** Words for uploaded polygons after "my": "inside my area". */
const UPLOAD_AREAS = new Set(['area', 'areas', 'polygon', 'polygons', 'zone', 'zones', 'boundary', 'boundaries', 'region', 'regions']);
/** Words for uploaded lines after "my": "within 5 km of my route". */
/** Words that name a position written after them ("around coordinates 42.36, -71.07"). */
const POSITION_WORDS = new Set(['coordinates', 'coordinate', 'coords', 'position', 'location', 'point', 'latlon', 'lat/lon']);
const UPLOAD_LINES = new Set(['route', 'routes', 'line', 'lines', 'track', 'tracks', 'trail', 'trails', 'path', 'paths']);

export type Reader = ReturnType<typeof createReader>;

/**
 * The state of reading one question and the phrase readers the rules share: tokens, the plan
 * being filled, places, classes ("an airport", "my sites") and references.
 */
export function createReader(query: string, ctx: ParseContext) {
  const { catalog } = ctx;
  const { lexicon } = catalog.kinds;
  // Positions written as DMS, DDM or MGRS become decimal "lat, lon", which the point rule reads.
  const written = rewritePaste(query);
  const t = tokenize(written.text);
  const plan: Plan = { subject: null, countries: [], unread: [], notRead: [], ignored: [], warnings: [], conditions: [] };
  const warn = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    plan.warnings.push({ code, message, ...extra } as Warning);
  for (const c of written.conversions) warn('reading', `read "${c.from}" (${c.format.toUpperCase()}) as ${c.to}`);
  /** A part of the question that cannot be used: the question is then refused, not answered wider. */
  const notRead = (words: string, why: string, part?: PlanPart) => {
    if (!plan.notRead.some((x) => x.words === words)) plan.notRead.push(part === undefined ? { words, why } : { words, why, part });
  };
  const w = (i: number) => t[i]?.w ?? '';
  const said = (from: number, to: number) => t.slice(from, to).map((x) => x.raw).join(' ');

  const fileKeys = ctx.fileNames.flatMap((f) => {
    const base = normalizeName(f.replace(/\.[^.]+$/, ''));
    return base ? [base.split(' ')] : [];
  });
  const matchWords = (i: number, key: string[]) => key.length > 0 && key.every((k, n) => w(i + n) === k);
  const { placeAt, placePoint } = createPlaceReader({ t, catalog, coordinates: ctx.coordinates, warn, unread: plan.unread });

  const isRuleWord = (word: string) => RULE_WORDS.has(word) || lexicon.nouns.has(word) || lexicon.adjectives.has(word);
  const words = t.map((x) => x.w);
  // One word that grammar or a kind reads is not taken as a layer's word ("near", "cities"); words
  // for uploads ("stations", "sites") only when files were sent.
  const grammarWord = (word: string) =>
    isGrammarWord(word) || lexicon.nouns.has(word) || lexicon.adjectives.has(word) || (UPLOAD_NOUNS.has(word) && ctx.fileNames.length > 0);

  const r = {
    t,
    plan,
    catalog,
    ctx,
    lexicon,
    w,
    said,
    warn,
    placeAt,
    placePoint,
    /** Token index of the last subject noun ("nearest" may come after it). */
    subjectWordAt: -1,
    /** Modifier adjective read before any subject ("large ... airports"), waiting for its noun. */
    pending: undefined as AdjectiveReading[] | undefined,
    /** Token index of the upload noun a possessive before order words is waiting for ("my 2 largest sites"). */
    possessedAt: -1,
    /**
     * Figures read without a unit (a population, a column's value), from the first token of their
     * phrase to the token after the number, with how to take the reading back: a word no rule reads
     * right after one ("100 furlongs") means a unit or a noun the reader does not have.
     */
    figures: [] as { from: number; end: number; undo: () => void }[],
    notRead,
    /** Conditions read from words about tags (`rules/tags.ts`): with no other subject, they imply one. */
    tagWords: [] as Condition[],
    numberAt: (i: number, allowMultiplier: boolean) => numberAt(t, i, allowMultiplier),
    distanceUnit: (i: number) => UNIT_KM[w(i)],

    /** "60 nmi", "2.5 km", "500 ft" at i: the distance, else null. */
    distanceAt(i: number): { said: SaidDistance; len: number } | null {
      const num = numberAt(t, i, false);
      if (!num) return null;
      const unit = unitAt(t, i + num[1]);
      if (!unit) return null;
      return { said: { value: num[0], unit: unit.said, km: num[0] * unit.perKm }, len: num[1] + unit.len };
    },

    /**
     * A position written in the question at i: "48.8566, 2.3522", "48.85 N 2.35 E", "-33.9 151.2",
     * UTM "33T 448251 5411932" (DMS, DDM and MGRS arrive here as decimals). [point, tokens used], else null.
     */
    pointAt(i: number): [RefPoint, number] | null {
      // "the coordinates 61.83, -6.81", "position 45, 5": a word naming what follows.
      if (POSITION_WORDS.has(w(i))) {
        const lead = w(i + 1) === ':' ? 2 : 1;
        const p = r.pointAt(i + lead);
        return p && [p[0], p[1] + lead];
      }
      // UTM: zone and band ("31U", which the tokenizer may split as "31" "U"), easting, northing.
      const zone = /^\d{1,2}[c-hj-np-x]$/.test(w(i)) ? 1 : /^\d{1,2}$/.test(w(i)) && /^[c-hj-np-x]$/.test(w(i + 1)) ? 2 : 0;
      if (zone && /^\d{5,7}(\.\d+)?$/.test(w(i + zone)) && /^\d{6,8}(\.\d+)?$/.test(w(i + zone + 1))) {
        const text = `${said(i, i + zone).replace(' ', '')} ${said(i + zone, i + zone + 2)}`;
        const p = parseCoord(text);
        if ('error' in p) return null;
        return [{ lon: p.lon, lat: p.lat, label: `UTM ${text}` }, zone + 2];
      }
      const lat = signedAt(t, i);
      if (lat === null) return null;
      let j = i + 1;
      let latSign = 1;
      if (w(j) === 'n' || w(j) === 's') latSign = w(j++) === 's' ? -1 : 1;
      const hemispheres = j > i + 1;
      const comma = w(j) === ',';
      if (comma) j++;
      const lon = signedAt(t, j);
      if (lon === null) return null;
      j++;
      let lonSign = 1;
      if (hemispheres) {
        if (w(j) !== 'e' && w(j) !== 'w') return null;
        lonSign = w(j++) === 'w' ? -1 : 1;
        // Without hemispheres, two figures are a position when written with decimals or with a comma
        // between them ("45, 5" after "of"); "to 1 2" is none.
      } else if (!comma && (!/[.]/.test(w(i)) || !/[.]/.test(w(i + 1)))) return null;
      const y = lat * latSign;
      const x = lon * lonSign;
      if (Math.abs(y) > 90 || Math.abs(x) > 180) return null;
      if (!hemispheres && !/[.]/.test(w(i)) && !/[.]/.test(w(j - 1)))
        warn('reading', `read "${t[i]!.raw}, ${t[j - 1]!.raw}" as the position latitude ${y}, longitude ${x}`);
      // The position as typed, to 6 decimals (about 0.1 m): a reading written back measures from the same point.
      return [{ lon: x, lat: y, label: `${POSITION.format(y)}, ${POSITION.format(x)}` }, j - i];
    },

    /** A phrase of the layer vocabulary at i ("fire stations", "Nordviertel"): the match, else null. */
    selectionAt(i: number) {
      const m = ctx.vocabulary?.at(words, i);
      if (!m || (m.len === 1 && grammarWord(w(i)))) return null;
      // "amenity=bench": a word before "=" is a tag's key, read as tag syntax.
      if (w(i + m.len) === '=' || w(i + m.len) === '!=') return null;
      // "police stations", "recycling facilities": a word for any such thing after a preset adds nothing to it.
      // (After a thing: a preset or a tag value, not a key's any value, a layer, a place or a brand.)
      if (GENERIC_HEADS.has(w(i + m.len)) && !/^(any |the layer|the place|the brand)/.test(m.selection.reading)) {
        const len = m.len + 1;
        return { len, selection: { ...m.selection, plural: isPlural(w(i + m.len)), said: said(i, i + len) } };
      }
      return { ...m, selection: { ...m.selection, said: said(i, i + m.len) } };
    },

    /**
     * A vocabulary phrase at i with the phrases that follow it: English puts the thing last, and
     * each phrase before it narrows it ("second hand shops": shop=second_hand, "Lidl supermarkets").
     * A qualifier that narrows to nothing the layers hold comes back in `unread` for the caller to
     * refuse by name: it is never dropped.
     */
    phraseAt(i: number): { selection: Selection; len: number; unread?: { words: string; why: string } } | null {
      const m = r.selectionAt(i);
      if (!m) return null;
      const head = r.selectionAt(i + m.len) && r.phraseAt(i + m.len);
      if (!head?.selection.sources.length) return m;
      const len = m.len + head.len;
      const narrowed = narrowSelection(head.selection, m.selection, ctx.vocabulary!.summaries, said(i, i + len));
      if (!narrowed.sources.length) {
        const why = m.selection.sources.length ? `no layer holds ${head.selection.said} that are ${m.selection.reading}` : `read as ${m.selection.reading}, but no layer holds such features`;
        return { selection: head.selection, len, unread: head.unread ?? { words: m.selection.said, why } };
      }
      return head.unread ? { selection: narrowed, len, unread: head.unread } : { selection: narrowed, len };
    },

    /** Whether the word at i is a kind of place said after a place's name ("municipality", or a settlement noun of the catalog): 1, else 0. */
    placeHeadAt(i: number): number {
      const noun = lexicon.nouns.get(w(i));
      return PLACE_HEADS.has(w(i)) || (noun !== undefined && !noun.plural && noun.kind === catalog.kinds.fallback) ? 1 : 0;
    },

    /**
     * Words that say a name follows, after "in": "the area with the name X", "area named X",
     * "the region called X", "area with "name" tag X": the tokens to skip to the name, else 0.
     */
    areaNameLeadAt(i: number): number {
      let j = i;
      if (w(j) === 'the') j++;
      if (!['area', 'region', 'boundary', 'areas'].includes(w(j))) return 0;
      j++;
      if (w(j) === 'named' || w(j) === 'called') return j + 1 - i;
      if (w(j) !== 'with') return 0;
      j++;
      if (w(j) === 'the' || w(j) === 'a') j++;
      if (w(j) === '"') j++;
      if (w(j) !== 'name') return 0;
      j++;
      if (w(j) === '"') j++;
      if (w(j) === 'tag' || w(j) === 'of') j++;
      return j - i;
    },

    /** A count for "top N": a positive whole number, else null. */
    countAt(i: number): [number, number] | null {
      const num = numberAt(t, i, false);
      return num && Number.isInteger(num[0]) && num[0] >= 1 ? num : null;
    },

    addCountry(cca2: string) {
      if (!plan.countries.includes(cca2)) plan.countries.push(cca2);
    },

    /** Countries or regions become country filters: [label] when p was one, else null. */
    areaFilter(p: Place): string | null {
      if (p.type === 'nation') {
        const row = catalog.countries.rows[p.idx]!;
        r.addCountry(row.cca2);
        return row.name;
      }
      if (p.type === 'region') {
        for (const c of p.countries) r.addCountry(c);
        return p.name;
      }
      return null;
    },

    /** The subject and the modifier values its words chose: false when another subject was read. */
    setSubject(kind: Kind, values?: Record<string, boolean>): boolean {
      if (plan.subject === null) plan.subject = kind;
      else if (plan.subject !== kind) return false;
      Object.assign(plan, values);
      return true;
    },

    /** Class phrase at i ("an airport", "large airports", "my sites", "those"): [reference, tokens used]. */
    classAt(i: number): [Reference, number] | null {
      let j = i;
      while (DETERMINERS.has(w(j))) j++;
      const adjective = lexicon.adjectives.get(w(j));
      if (adjective) j++;
      const noun = lexicon.nouns.get(w(j));
      if (noun) {
        const a = adjective?.find((x) => x.kind === noun.kind);
        const prefix = adjective ? `${(a ?? adjective[0]!).label} ` : '';
        const values = { ...noun.sets, ...(a ? { [a.key]: a.value } : {}) };
        return [{ ...values, type: 'class', kind: noun.kind, label: prefix + noun.label }, j - i + 1];
      }
      if (adjective) return null;
      if (w(j) === 'my' || w(j) === 'our' || w(j) === 'uploaded') {
        if (UPLOAD_NOUNS.has(w(j + 1))) return [{ ...UPLOAD_CLASS }, j - i + 2];
        // "inside my area", "within our polygons": the uploaded geometries as an area.
        if ((UPLOAD_AREAS.has(w(j + 1)) || UPLOAD_LINES.has(w(j + 1))) && ctx.fileNames.length)
          return [{ ...UPLOAD_CLASS, label: `the uploaded ${w(j + 1)}`, shape: UPLOAD_AREAS.has(w(j + 1)) ? 'area' : 'line' }, j - i + 2];
      }
      for (const key of fileKeys) if (matchWords(j, key)) return [{ ...UPLOAD_CLASS }, j - i + key.length];
      if (ctx.savedSubject !== undefined && ['those', 'them', 'these', 'previous', 'earlier'].includes(w(j)))
        return [{ type: 'saved', label: 'the earlier results' }, j - i + 1 + (w(j + 1) === 'results' ? 1 : 0)];
      if (w(j) === 'these' && ctx.fileNames.length) return [{ ...UPLOAD_CLASS }, j - i + 1];
      const sel = r.phraseAt(j);
      if (sel?.unread) notRead(sel.unread.words, sel.unread.why);
      if (sel) return [{ type: 'selection', selection: sel.selection, label: sel.selection.said }, j - i + sel.len];
      return null;
    },

    /**
     * A reference: a class of items or a named place. A country has no single point to measure
     * from, so it becomes a country filter ("near France" reads as "in France") and the reference
     * is null; the caller then sets no radius or distance order.
     */
    referenceAt(i: number, phrase: string): [Reference | null, number] | null {
      // A request coordinate's name is the request's own word for a place: it wins over a class
      // or a vocabulary word of the same spelling ("Depot" is also an OSM preset).
      let k = i;
      while (w(k) === 'the') k++;
      const pos = r.pointAt(k);
      if (pos) return [{ type: 'points', points: [pos[0]], label: pos[0].label }, k - i + pos[1]];
      const named = placeAt(k, true, false);
      if (named?.type === 'coord') return [{ type: 'points', points: [named.point], label: named.point.label }, k - i + named.len];
      const cls = r.classAt(i);
      if (cls?.[0].type === 'selection' && !cls[0].selection.sources.length)
        notRead(cls[0].label, `read as ${cls[0].selection.reading}, but no layer holds such features`, cls[0]);
      if (cls) return withClassFilter(cls, i + cls[1]);
      let j = i;
      while (w(j) === 'the') j++;
      if (['me', 'here', 'us'].includes(w(j))) return [r.herePoints(`${phrase} ${t[j]!.raw}`), j - i + 1];
      const unknownBefore = plan.unread.length;
      const p = placeAt(j, true);
      if (!p) {
        const unknown = r.unknownPlaceAt(j);
        if (!unknown) return null;
        return [null, j - i + unknown];
      }
      if (p.type === 'nation' || p.type === 'region') {
        const area = r.areaFilter(p);
        warn('reading', `read "${phrase} ${area}" as "in ${area}": distances to a whole country or region are not measured`);
        return [null, j - i + p.len];
      }
      const pt = placePoint(p);
      const ref: Reference = { type: 'points', points: [pt], label: pt.label };
      r.placeNotFound(unknownBefore, ref);
      return [ref, j - i + p.len];
    },

    /**
     * Place names the place reader could not find since `before` ("Springfield, France", read as
     * the best guess): unread, held by the reference built from the guess.
     */
    placeNotFound(before: number, ref: Reference) {
      for (const u of plan.unread.slice(before)) notRead(u, 'not a place the catalog knows', ref);
    },

    /** "near me", "here": the request coordinates; without any, nothing (never everywhere). */
    herePoints(phrase: string): Reference | null {
      if (ctx.coordinates.length) {
        const points = ctx.coordinates.map((c) => ({ lon: c.longitude, lat: c.latitude, label: c.name, site: true as const }));
        return { type: 'points', points, label: points.map((p) => p.label).join(', ') };
      }
      plan.unread.push(phrase);
      notRead(phrase, 'needs a position: send request coordinates or write one, such as "48.85, 2.35"');
      warn('no_position', `"${phrase}" needs a position: send request coordinates; nothing was searched`);
      return null;
    },

    /**
     * Words after "in", "near" or "of" that name no known place ("in Atlantis"): kept as unread so
     * the answer is empty with a warning instead of every item. Returns tokens used, or 0.
     */
    unknownPlaceAt(i: number): number {
      let j = i;
      while (t[j] && t[j]!.w !== ',' && !SILENT.has(w(j)) && !isRuleWord(w(j)) && !/^-?\d/.test(w(j)) && !UNIT_KM[w(j)]) j++;
      if (j === i || NOT_PLACES.has(w(i))) return 0;
      const words = said(i, j);
      plan.unread.push(words);
      notRead(words, 'not a place the catalog knows: countries, regions, cities and request coordinates');
      warn('unknown_place', `"${words}" is not a place the catalog knows (countries, regions, cities and request coordinates); nothing was searched there`, { words });
      return j - i;
    },

    /**
     * "nearest airport" (one noun, singular) asks for the single nearest; "nearest airports" ranks
     * them all; "the 3 nearest" takes 3. The noun is the next subject word or the one before.
     */
    singularNearest(i: number) {
      let j = i + 1;
      while (DETERMINERS.has(w(j)) || lexicon.adjectives.has(w(j)) || w(j) === 'my' || w(j) === 'our') j++;
      const sel = lexicon.nouns.has(w(j)) ? null : r.selectionAt(j);
      const noun = lexicon.nouns.has(w(j)) || UPLOAD_NOUNS.has(w(j)) ? j : sel ? j + sel.len - 1 : r.subjectWordAt;
      if (noun < 0) return;
      const words = said(Math.min(i, noun), Math.max(i, noun) + 1);
      if (sel ? sel.selection.plural : (lexicon.nouns.get(w(noun))?.plural ?? isPlural(w(noun)))) {
        warn('reading', `read "${words}" as every match ranked by distance; "the 3 nearest" takes the first 3`);
        return;
      }
      plan.top = 1;
      warn('reading', `read "${words}" as the single nearest; "nearest ${w(noun)}s" ranks them all, "the 3 nearest" takes 3`);
    },

    /**
     * "N km (of|from|around) REF" at i: tokens used, or 0. Without `min` the distance is the upper
     * bound; with it, the lower bound ("more than 100 km from X", strict unless `inclusive`).
     */
    radiusAt(i: number, min?: { inclusive: boolean }): number {
      const dist = r.distanceAt(i);
      if (!dist) return 0;
      return r.relationAt(i, i + dist.len, min ? { lo: dist.said, inclusive: min.inclusive } : { hi: dist.said });
    },

    /** The reference after distance words ending at `at` (from i), and the relation with those bounds: tokens used from i. */
    relationAt(i: number, at: number, b: { lo?: SaidDistance; hi?: SaidDistance; inclusive?: boolean }): number {
      let j = at;
      if (['of', 'from', 'around', 'to', 'near', 'away'].includes(w(j))) j++;
      if (w(j - 1) === 'away' && w(j) === 'from') j++;
      const words = said(i, j);
      let ref = r.referenceAt(j, `within ${words}`);
      // Nothing after the distance in a follow-up: the earlier question's reference, said so.
      if (!ref && ctx.savedReference && t.slice(j).every((x) => SILENT.has(x.w) || /^\p{P}$/u.test(x.w))) {
        ref = [ctx.savedReference, 0];
        warn('context', `measured from ${ctx.savedReference.label}, as in the earlier question`);
      }
      if (!ref) {
        warn('unknown_place', `no place or class found after "${words}"; nothing was searched`);
        plan.unread.push(words);
        notRead(words, 'no place, position or class follows the distance');
        return j - i;
      }
      if (ref[0]) {
        plan.within = { reference: ref[0], radiusKm: b.hi ? b.hi.km : Infinity };
        if (b.hi) plan.within.said = b.hi;
        if (b.lo) Object.assign(plan.within, { minKm: b.lo.km, minInclusive: !!b.inclusive, saidMin: b.lo });
      }
      return j - i + ref[1];
    },
  };

  /**
   * A filter phrase belongs to the noun phrase it follows: "near a city over 1 million people"
   * filters the reference cities, not the subject.
   */
  function withClassFilter(cls: [Reference, number], end: number): [Reference, number] {
    const [ref, len] = cls;
    const f = trailingPopulationFilter(t, end);
    if (!f) return cls;
    if (ref.type !== 'class' || !catalog.kinds.populated(ref.kind)) {
      notRead(said(end, end + f[1]), `${ref.label} have no population data`);
      warn('ignored', `population filters apply to ${catalog.kinds.populatedLabels}; "${said(end, end + f[1])}" ignored for ${ref.label}`);
      return [ref, len + f[1]];
    }
    const label = `${ref.label} ${populationText(f[0])}`;
    const filtered = { ...ref, popMin: f[0].min, popMax: f[0].max, label };
    r.figures.push({
      from: end,
      end: end + f[1],
      undo: () => {
        delete filtered.popMin;
        delete filtered.popMax;
        filtered.label = ref.label;
      },
    });
    return [filtered, len + f[1]];
  }

  return r;
}

const populationText = (f: { min?: number; max?: number }) =>
  f.min !== undefined && f.max !== undefined
    ? `of ${fmt(f.min)} to ${fmt(f.max)} people`
    : f.min !== undefined
      ? `over ${fmt(f.min)} people`
      : `under ${fmt(f.max!)} people`;
