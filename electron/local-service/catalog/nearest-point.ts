import type KDBush from 'kdbush';

const rad = Math.PI / 180;

/** sin²(θ/2): great-circle distances compare as this, without the arcsine. */
const haverSin = (theta: number) => {
  const s = Math.sin(theta / 2);
  return s * s;
};
const haverSinDistPartial = (haverSinDLng: number, cosLat1: number, lat1: number, lat2: number) =>
  cosLat1 * Math.cos(lat2 * rad) * haverSinDLng + haverSin((lat1 - lat2) * rad);
/** The latitude where the great circle from lat at haverSinDLng of longitude comes nearest. */
const vertexLat = (lat: number, haverSinDLng: number) => {
  const cosDLng = 1 - 2 * haverSinDLng;
  if (cosDLng <= 0) return lat > 0 ? 90 : -90;
  return Math.atan(Math.tan(lat * rad) / cosDLng) / rad;
};

/** A lower bound of the distance (as haverSin) from a position to any point of a lon/lat box. */
function boxDist(lng: number, lat: number, cosLat: number, minLng: number, minLat: number, maxLng: number, maxLat: number): number {
  if (lng >= minLng && lng <= maxLng) {
    if (lat < minLat) return haverSin((lat - minLat) * rad);
    if (lat > maxLat) return haverSin((lat - maxLat) * rad);
    return 0;
  }
  const haverSinDLng = Math.min(haverSin((lng - minLng) * rad), haverSin((lng - maxLng) * rad));
  const extremumLat = vertexLat(lat, haverSinDLng);
  if (extremumLat > minLat && extremumLat < maxLat) return haverSinDistPartial(haverSinDLng, cosLat, lat, extremumLat);
  return Math.min(haverSinDistPartial(haverSinDLng, cosLat, lat, minLat), haverSinDistPartial(haverSinDLng, cosLat, lat, maxLat));
}

/**
 * The point of a kdbush index nearest (lon, lat) on the sphere (its id), or -1 when it holds
 * none; ties go to the lower id. geokdbush's around() answers the same with a best-first search
 * that allocates an object for every tree node and point it looks at: asked for the nearest city
 * of each layer feature listed, it made a quarter of a service worker's allocations under load,
 * and so its collections. This is a depth-first branch and bound over the index's own sorted
 * arrays, nearer half first, with geokdbush's lower bound of the distance to a node's box (its
 * formulas, ISC licence, Vladimir Agafonkin), on one small stack per call.
 */
export function nearestPoint(index: KDBush, lon: number, lat: number): number {
  const { ids, coords, nodeSize } = index as KDBush & { ids: ArrayLike<number>; coords: ArrayLike<number> };
  const cosLat = Math.cos(lat * rad);
  let best = -1;
  let bestDist = Infinity;
  // Nodes still to look at, 7 numbers each: left, right, axis and the box (min lng/lat, max lng/lat).
  const stack = new Float64Array(7 * 64);
  let sp = 0;
  const push = (left: number, right: number, axis: number, minLng: number, minLat: number, maxLng: number, maxLat: number) => {
    if (left > right) return;
    stack[sp++] = left;
    stack[sp++] = right;
    stack[sp++] = axis;
    stack[sp++] = minLng;
    stack[sp++] = minLat;
    stack[sp++] = maxLng;
    stack[sp++] = maxLat;
  };
  push(0, ids.length - 1, 0, -180, -90, 180, 90);
  while (sp > 0) {
    sp -= 7;
    const left = stack[sp]!;
    const right = stack[sp + 1]!;
    const axis = stack[sp + 2]!;
    const minLng = stack[sp + 3]!;
    const minLat = stack[sp + 4]!;
    const maxLng = stack[sp + 5]!;
    const maxLat = stack[sp + 6]!;
    if (boxDist(lon, lat, cosLat, minLng, minLat, maxLng, maxLat) > bestDist) continue;
    const leaf = right - left <= nodeSize;
    const m = (left + right) >> 1;
    for (let i = leaf ? left : m; i <= (leaf ? right : m); i++) {
      const d = haverSinDistPartial(haverSin((lon - coords[2 * i]!) * rad), cosLat, lat, coords[2 * i + 1]!);
      const id = ids[i]!;
      if (d < bestDist || (d === bestDist && id < best)) {
        best = id;
        bestDist = d;
      }
    }
    if (leaf) continue;
    const split = coords[2 * m + axis]!;
    const next = 1 - axis;
    const lowFirst = (axis === 0 ? lon : lat) <= split;
    // The half holding the position is looked at first (pushed last): its points make the bound
    // that prunes the other.
    for (let k = 0; k < 2; k++) {
      if ((k === 0) !== lowFirst) push(left, m - 1, next, minLng, minLat, axis === 0 ? split : maxLng, axis === 1 ? split : maxLat);
      else push(m + 1, right, next, axis === 0 ? split : minLng, axis === 1 ? split : minLat, maxLng, maxLat);
    }
  }
  return best;
}
