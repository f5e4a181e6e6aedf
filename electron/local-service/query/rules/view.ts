import { boxText } from '../bbox';
import type { Reader } from '../reader';

/** Nouns for what the map shows: "in the current view", "in the selected window". */
const VIEW_NOUNS = new Set(['view', 'window', 'extent', 'screen', 'viewport', 'area', 'region', 'frame']);
/**
 * Words before them; "area" and "region" need one that points at the map ("in this area", not
 * "in the area of X"). "my area" is an upload's polygon, not the view.
 */
const VIEW_WORDS = new Set(['current', 'visible', 'selected', 'displayed', 'shown', 'this', 'map', 'present']);
const PRECISE_NOUNS = new Set(['view', 'window', 'extent', 'screen', 'viewport', 'frame']);

/**
 * "in the current view", "in the map view", "in this area", "on screen", "here": the map view the
 * request sent (`view_bbox`) as a box. Without one, refused by name: never everywhere.
 */
export function mapView(r: Reader, i: number): number {
  const { w } = r;
  let len: number;
  if (w(i) === 'here' || (w(i) === 'on' && w(i + 1) === 'screen')) len = w(i) === 'here' ? 1 : 2;
  else {
    if (!['in', 'inside', 'within', 'on'].includes(w(i))) return 0;
    let j = i + 1;
    let pointed = false;
    for (; w(j) === 'the' || VIEW_WORDS.has(w(j)); j++) if (VIEW_WORDS.has(w(j))) pointed = true;
    if (!VIEW_NOUNS.has(w(j)) || (!pointed && !PRECISE_NOUNS.has(w(j)))) return 0;
    // "in the view of X", "in this area of X": a place follows, not the map's view.
    if (w(j + 1) === 'of') return 0;
    len = j + 1 - i;
  }
  const said = r.said(i, i + len);
  const view = r.ctx.view;
  if (!view) {
    r.plan.notRead.push({ words: said, why: 'needs the map view: the app sends it with each question (view_bbox); none was sent', understood: true });
    return len;
  }
  r.plan.bbox = { ...view };
  r.warn('reading', `read "${said}" as the map view, ${boxText(view)}`);
  return len;
}
