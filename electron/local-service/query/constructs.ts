import type { Rule } from './rules/rule';
import { countWord, density, howMany, numberOf, perCountry, perMeasure } from './rules/measure';
import { byOrder, countBeforeOrder, nearestTo, nearestWord, populationFilter, sizeOrder, sortWord, topN } from './rules/order';
import { numberCondition, openCondition, operatorCondition, uploadValue, wheelchairCondition } from './rules/conditions';
import { along, insideFeature, insideKeyedArea, insideUploads, intersecting, layerSubject, outside, perFeature } from './rules/layers';
import { modifierWord, possessedNoun, possessiveBeforeOrder, subjectNoun, uploadsOrSaved } from './rules/subject';
import { seenSubject } from './rules/seen';
import { absence, elementWord, keyPhrase, nameCondition, presence, tagCondition, taggedAs } from './rules/tags';
import { joinedValue } from './rules/joined';
import { levelBeforeWord } from './rules/levels';
import { forValue, sellsCondition } from './rules/offers';
import { mapView } from './rules/view';
import { barePlace, betweenRadius, beyondRadius, box, demonym, inPlace, near, ofCountry, underRadius, withinRadius } from './rules/where';

/** The part of the plan a construct fills. */
export type PlanSlot = 'subject' | 'filter' | 'relation' | 'grouping' | 'order' | 'limit' | 'scope';

/** What an example question needs from the request besides the layers: uploaded files, a map view, photos. */
export type ExampleNeed = 'files' | 'view' | 'photos';

/**
 * One phrasing the reader knows: the rule that reads it, the part of the plan it fills, what it
 * reads as and, where it has one, when it refuses, and a question it reads (tests/node/local-service/
 * constructs.test.ts proves that each example is read by its own construct, so none is dead or shadowed).
 */
export interface Construct {
  id: string;
  fills: PlanSlot;
  rule: Rule;
  /** What the words are read as. */
  reading: string;
  /** When the words are refused rather than read, if ever. */
  refusal?: string;
  example: string;
  needs?: readonly ExampleNeed[];
  /** Columns a layer must hold for the example to read (its values; null: too many to list), besides the test's own. */
  exampleColumns?: Readonly<Record<string, readonly string[] | null>>;
}

/**
 * Every construct, tried in this order at each word; the first that reads something wins. A new
 * phrasing is its rule's module, one entry here and its test.
 */
export const CONSTRUCTS: readonly Construct[] = [
  { id: 'possessed-noun', fills: 'subject', rule: possessedNoun, reading: 'the upload noun a possessive before order words waits for', example: 'my 2 largest sites', needs: ['files'] },
  { id: 'how-many', fills: 'grouping', rule: howMany, reading: 'a count', example: 'how many airports in France' },
  { id: 'number-of', fills: 'grouping', rule: numberOf, reading: 'a count', example: 'number of airports in France' },
  { id: 'count-word', fills: 'grouping', rule: countWord, reading: 'a count', example: 'count airports in France' },
  { id: 'per-measure', fills: 'grouping', rule: perMeasure, reading: 'a ratio: per capita, per million people, per area', example: 'airports per capita in France' },
  { id: 'density', fills: 'grouping', rule: density, reading: 'a count per area', example: 'airport density in France' },
  { id: 'per-country', fills: 'grouping', rule: perCountry, reading: 'figures per country', example: 'airports per country' },
  { id: 'per-feature', fills: 'grouping', rule: perFeature, reading: 'counts per polygon of a layer', example: 'pharmacies per district' },
  { id: 'upload-value', fills: 'filter', rule: uploadValue, reading: 'an uploaded column equal to a value', example: 'my open sites', needs: ['files'] },
  { id: 'open', fills: 'filter', rule: openCondition, reading: 'open at a time, from opening_hours', example: 'pharmacies open on Sunday' },
  { id: 'wheelchair', fills: 'filter', rule: wheelchairCondition, reading: 'wheelchair=yes', example: 'wheelchair accessible pharmacies' },
  { id: 'operator', fills: 'filter', rule: operatorCondition, reading: 'the operator tag holds the words', example: 'pharmacies operated by Lenne' },
  { id: 'sells', fills: 'filter', rule: sellsCondition, reading: 'a namespaced key some layer holds, =yes', example: 'fuel stations selling octane 80 fuel', exampleColumns: { amenity: ['fuel'], 'fuel:octane_80': ['yes'] } },
  { id: 'number', fills: 'filter', rule: numberCondition, reading: 'a numeric column against a figure', example: 'pharmacies with a capacity of at least 50' },
  { id: 'within-radius', fills: 'relation', rule: withinRadius, reading: 'within a distance of a reference', example: 'airports within 30 km of Lyon' },
  { id: 'under-radius', fills: 'relation', rule: underRadius, reading: 'within a distance of a reference', example: 'airports less than 10 km from Lyon' },
  { id: 'beyond-radius', fills: 'relation', rule: beyondRadius, reading: 'farther than a distance from a reference', example: 'airports more than 100 km from Lyon' },
  { id: 'between-radius', fills: 'relation', rule: betweenRadius, reading: 'a ring around a reference, both ends included', example: 'airports between 1 and 2 km of Lyon' },
  { id: 'near', fills: 'relation', rule: near, reading: 'within the default radius, nearest first', example: 'airports near Lyon' },
  { id: 'map-view', fills: 'scope', rule: mapView, reading: 'the map view the request sent', refusal: 'without a view the request sent', example: 'pharmacies in the current view', needs: ['view'] },
  { id: 'inside-keyed-area', fills: 'relation', rule: insideKeyedArea, reading: 'inside a polygon of a layer by its name and a key said in words with its figure', refusal: 'no polygon of that name has the figure', example: 'pharmacies in admin level 10 areas with the name Fulerum', exampleColumns: { name: ['Fulerum'], admin_level: ['10'] } },
  { id: 'inside-feature', fills: 'relation', rule: insideFeature, reading: 'inside a polygon of a layer', example: 'pharmacies in Nordviertel' },
  { id: 'inside-uploads', fills: 'relation', rule: insideUploads, reading: 'inside the uploaded polygons', example: 'airports inside my area', needs: ['files'] },
  { id: 'in-place', fills: 'scope', rule: inPlace, reading: 'a country or region, or a radius around a city', refusal: 'a capitalised name no gazetteer knows', example: 'airports in Spain' },
  { id: 'of-country', fills: 'scope', rule: ofCountry, reading: 'a country or region after "of"', example: 'capital of France' },
  { id: 'box', fills: 'scope', rule: box, reading: 'a box', refusal: 'a box that does not read', example: 'airports in bbox 4,45,5,46' },
  { id: 'along', fills: 'relation', rule: along, reading: 'within a default distance of a line', example: 'pharmacies along the Lenne' },
  { id: 'outside', fills: 'relation', rule: outside, reading: 'not in a polygon and not on it', example: 'pharmacies outside Nordviertel' },
  { id: 'intersecting', fills: 'relation', rule: intersecting, reading: 'sharing a point with a feature', example: 'bridges crossing the Lenne' },
  { id: 'name', fills: 'filter', rule: nameCondition, reading: 'the name tag equals, contains or starts with the words', example: 'pharmacies named Lenne' },
  { id: 'tagged-as', fills: 'filter', rule: taggedAs, reading: 'the phrase after "as" narrows the subject', example: 'roads tagged as footway' },
  { id: 'for-value', fills: 'subject', rule: forValue, reading: 'a value of the key the subject was read from', example: 'shops for hearing aids', exampleColumns: { shop: null } },
  { id: 'level-before-word', fills: 'filter', rule: levelBeforeWord, reading: 'a two-part key said turned round with its figure between', example: 'level 6 administrative boundaries in Spain', exampleColumns: { admin_level: ['6'], boundary: ['administrative'] } },
  { id: 'tag', fills: 'filter', rule: tagCondition, reading: 'a tag test as written', example: 'amenity=pharmacy in Spain' },
  { id: 'absence', fills: 'filter', rule: absence, reading: 'the tag is not there, or not those features', example: 'pharmacies without a website' },
  { id: 'presence', fills: 'filter', rule: presence, reading: 'the tag is there', example: 'pharmacies with a website' },
  { id: 'key-phrase', fills: 'subject', rule: keyPhrase, reading: 'the features that have a key said in words', example: 'house numbers in Spain' },
  { id: 'sort-word', fills: 'order', rule: sortWord, reading: 'no meaning alone', example: 'sort airports by population' },
  { id: 'by-order', fills: 'order', rule: byOrder, reading: 'an order by population, size or distance', example: 'airports by distance to Lyon' },
  { id: 'nearest', fills: 'order', rule: nearestWord, reading: 'distance order, and how many', example: 'nearest airports' },
  { id: 'nearest-to', fills: 'relation', rule: nearestTo, reading: 'what distances are measured from', example: 'nearest airport to Oslo' },
  { id: 'top', fills: 'limit', rule: topN, reading: 'how many', example: 'top 5 cities' },
  { id: 'size-order', fills: 'order', rule: sizeOrder, reading: 'population order', example: 'largest cities in France' },
  { id: 'count-before-order', fills: 'limit', rule: countBeforeOrder, reading: 'how many, before the order word', example: '5 largest cities in France' },
  { id: 'population', fills: 'filter', rule: populationFilter, reading: 'the population range of the subject', example: 'cities over 1 million' },
  { id: 'seen', fills: 'subject', rule: seenSubject, reading: 'photos by what the detector saw in them', example: 'photos showing cars', needs: ['photos'] },
  { id: 'demonym', fills: 'scope', rule: demonym, reading: 'a country', example: 'French airports' },
  { id: 'bare-place', fills: 'scope', rule: barePlace, reading: 'a country or region named with no "in"', example: 'airports France' },
  { id: 'element-type', fills: 'filter', rule: elementWord, reading: 'OSM element types, or the geometry', example: 'nodes with a website' },
  { id: 'joined-value', fills: 'subject', rule: joinedValue, reading: "words run together as a value of the head noun's key", example: 'do it yourself shops', exampleColumns: { shop: null } },
  { id: 'layer-subject', fills: 'subject', rule: layerSubject, reading: 'features of the layer vocabulary', refusal: 'a phrase no layer holds', example: 'pharmacies in Spain' },
  { id: 'kind-modifier', fills: 'subject', rule: modifierWord, reading: "a kind's modifier adjective", example: 'major airports' },
  { id: 'kind-noun', fills: 'subject', rule: subjectNoun, reading: "a kind's noun", example: 'airports' },
  { id: 'uploads', fills: 'subject', rule: uploadsOrSaved, reading: 'my uploads, a file by name, the earlier results', example: 'my sites in France', needs: ['files'] },
  { id: 'possessive-before-order', fills: 'subject', rule: possessiveBeforeOrder, reading: 'a possessive with order words before its noun', example: 'my 2 largest sites', needs: ['files'] },
];
