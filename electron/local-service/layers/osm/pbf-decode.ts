/**
 * The source of `decode(data)`, run on the block decoder threads (pbf-workers.ts): an OSM PBF
 * PrimitiveBlock (osmformat.proto) read straight off the protobuf wire. Packed node ids,
 * coordinates and way refs go from their varints into typed arrays, with no JS array or object
 * per value (a generated protobuf decoder builds an array of numbers per packed field, and
 * collecting those was half of a decoder thread's time). Strings of the block's table are
 * decoded when first used. Plain JavaScript in a string: it is evaluated on the worker as is,
 * with no build step. A block that ends inside a field, or whose fields overrun their message,
 * is refused with "damaged block".
 *
 * What it returns is a DecodedBlock (pbf-workers.ts): tags of tagged nodes and of ways as JSON
 * text, relations as small objects (few per file).
 */
export const PBF_DECODE_SOURCE = String.raw`
const MEMBER_TYPES = ['node', 'way', 'relation'];
let buf = null;
let pos = 0;

function damaged(what) {
  throw new Error('damaged block (' + what + ')');
}

// A varint of up to 64 bits as a double: exact below 2^53, which holds every OSM id and delta.
function varint() {
  let b = buf[pos++];
  if (b < 0x80) return b;
  let v = b & 0x7f;
  b = buf[pos++];
  v |= (b & 0x7f) << 7;
  if (b < 0x80) return v;
  b = buf[pos++];
  v |= (b & 0x7f) << 14;
  if (b < 0x80) return v;
  b = buf[pos++];
  v |= (b & 0x7f) << 21;
  if (b < 0x80) return v;
  let mul = 268435456;
  for (let n = 4; ; n++) {
    if (n >= 10 || pos >= buf.length) damaged('varint');
    b = buf[pos++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return v;
    mul *= 128;
  }
}

const zigzag = (z) => (z % 2 === 1 ? -(z + 1) / 2 : z / 2);

// int64/int32 fields: negatives are ten-byte two's complement, read in 32-bit halves to stay exact.
function int64() {
  let lo = 0;
  let hi = 0;
  let shift = 0;
  let b;
  do {
    if (pos >= buf.length) damaged('varint');
    b = buf[pos++];
    if (shift < 28) lo |= (b & 0x7f) << shift;
    else if (shift === 28) {
      lo |= (b & 0x0f) << 28;
      hi |= (b & 0x7f) >>> 4;
    } else if (shift < 64) hi |= (b & 0x7f) << (shift - 32);
    shift += 7;
  } while (b >= 0x80);
  if (hi & 0x80000000) return -((~hi >>> 0) * 4294967296 + (~lo >>> 0) + 1);
  return (hi >>> 0) * 4294967296 + (lo >>> 0);
}

function skip(type) {
  if (type === 0) varint();
  else if (type === 1) pos += 8;
  else if (type === 2) {
    const len = varint();
    pos += len;
  }
  else if (type === 5) pos += 4;
  else damaged('wire type ' + type);
}

// The end of a length-delimited field that starts at pos, checked against its parent's end.
function sub(end) {
  const len = varint();
  const e = pos + len;
  if (e > end) damaged('field overruns its message');
  return e;
}

function countVarints(s, e) {
  let n = 0;
  for (let i = s; i < e; i++) if (buf[i] < 0x80) n++;
  return n;
}

// Values of a repeated scalar field, packed or not, appended to list.
function repeated(type, end, list, read) {
  if (type === 2) {
    const e = sub(end);
    while (pos < e) list.push(read());
    if (pos !== e) damaged('packed field');
  } else list.push(read());
}

function decode(data) {
  buf = data;
  pos = 0;
  const end = data.length;
  const strStart = [];
  const strEnd = [];
  const groups = [];
  let g = 100;
  let latOff = 0;
  let lonOff = 0;
  while (pos < end) {
    const key = varint();
    const f = key >>> 3;
    const t = key & 7;
    if (f === 1 && t === 2) {
      const e = sub(end);
      while (pos < e) {
        const k = varint();
        if (k === 10) {
          const se = sub(e);
          strStart.push(pos);
          strEnd.push(se);
          pos = se;
        } else skip(k & 7);
      }
      if (pos !== e) damaged('string table');
    } else if (f === 2 && t === 2) {
      const e = sub(end);
      groups.push(pos, e);
      pos = e;
    } else if (f === 17 && t === 0) g = int64();
    else if (f === 19 && t === 0) latOff = int64();
    else if (f === 20 && t === 0) lonOff = int64();
    else skip(t);
  }
  if (pos !== end) damaged('block');
  const strings = new Array(strStart.length);
  const str = (k) => {
    if (k >= strStart.length) damaged('string index');
    let s = strings[k];
    if (s === undefined) s = strings[k] = buf.toString('utf8', strStart[k], strEnd[k]);
    return s;
  };
  const tagsJson = (keys, vals) => {
    const t = {};
    for (let i = 0; i < keys.length && i < vals.length; i++) t[str(keys[i])] = str(vals[i]);
    return JSON.stringify(t);
  };
  // Offsets and granularity are in nanodegrees: 1e-7 degrees is a hundredth of that.
  const e7 = (off, n) => Math.round((off + g * n) / 100);

  // First pass: sizes of the arrays, and where each dense group's packed fields lie.
  let nodes = 0;
  let ways = 0;
  let refs = 0;
  for (let gi = 0; gi < groups.length; gi += 2) {
    pos = groups[gi];
    const ge = groups[gi + 1];
    while (pos < ge) {
      const key = varint();
      const f = key >>> 3;
      const t = key & 7;
      if (f === 1 && t === 2) {
        nodes++;
        pos = sub(ge);
      } else if (f === 2 && t === 2) {
        const e = sub(ge);
        while (pos < e) {
          const k = varint();
          if (k === 10) {
            const ie = sub(e);
            nodes += countVarints(pos, ie);
            pos = ie;
          } else skip(k & 7);
        }
      } else if (f === 3 && t === 2) {
        ways++;
        const e = sub(ge);
        while (pos < e) {
          const k = varint();
          if (k === 66) {
            const re = sub(e);
            refs += countVarints(pos, re);
            pos = re;
          } else if (k === 64) {
            refs++;
            varint();
          } else skip(k & 7);
        }
      } else skip(t);
    }
    if (pos !== ge) damaged('group');
  }

  const nodeIds = new Float64Array(nodes);
  const nodeLon = new Int32Array(nodes);
  const nodeLat = new Int32Array(nodes);
  const tagged = [];
  const texts = [];
  const wayIds = new Float64Array(ways);
  const wayRefEnds = new Uint32Array(ways);
  const wayRefs = new Float64Array(refs);
  const wayTexts = [];
  const relations = [];
  let i = 0;
  let w = 0;
  let r = 0;
  for (let gi = 0; gi < groups.length; gi += 2) {
    pos = groups[gi];
    const ge = groups[gi + 1];
    while (pos < ge) {
      const key = varint();
      const f = key >>> 3;
      const t = key & 7;
      if (f === 1 && t === 2) {
        const e = sub(ge);
        let id = 0;
        let lat = 0;
        let lon = 0;
        const keys = [];
        const vals = [];
        while (pos < e) {
          const k = varint();
          const kf = k >>> 3;
          const kt = k & 7;
          if (kf === 1 && kt === 0) id = zigzag(varint());
          else if (kf === 2) repeated(kt, e, keys, varint);
          else if (kf === 3) repeated(kt, e, vals, varint);
          else if (kf === 8 && kt === 0) lat = zigzag(varint());
          else if (kf === 9 && kt === 0) lon = zigzag(varint());
          else skip(kt);
        }
        if (pos !== e) damaged('node');
        nodeIds[i] = id;
        nodeLon[i] = e7(lonOff, lon);
        nodeLat[i] = e7(latOff, lat);
        if (keys.length) {
          tagged.push(i);
          texts.push(tagsJson(keys, vals));
        }
        i++;
      } else if (f === 2 && t === 2) {
        const e = sub(ge);
        let ids = -1, idsEnd = -1, lats = -1, latsEnd = -1, lons = -1, lonsEnd = -1, kv = -1, kvEnd = -1;
        while (pos < e) {
          const k = varint();
          if (k === 10) { idsEnd = sub(e); ids = pos; pos = idsEnd; }
          else if (k === 66) { latsEnd = sub(e); lats = pos; pos = latsEnd; }
          else if (k === 74) { lonsEnd = sub(e); lons = pos; pos = lonsEnd; }
          else if (k === 82) { kvEnd = sub(e); kv = pos; pos = kvEnd; }
          else skip(k & 7);
        }
        if (pos !== e) damaged('dense nodes');
        if (ids < 0) continue;
        if (lats < 0 || lons < 0) damaged('dense nodes without coordinates');
        const n = countVarints(ids, idsEnd);
        let id = 0;
        let la = 0;
        let lo = 0;
        for (let j = 0; j < n; j++) {
          pos = ids;
          id += zigzag(varint());
          ids = pos;
          pos = lats;
          la += zigzag(varint());
          lats = pos;
          pos = lons;
          lo += zigzag(varint());
          lons = pos;
          nodeIds[i] = id;
          nodeLon[i] = e7(lonOff, lo);
          nodeLat[i] = e7(latOff, la);
          // keys_vals: key, value pairs of each node in turn, each node's list ended by a 0.
          if (kv >= 0 && kv < kvEnd) {
            pos = kv;
            let k = varint();
            if (k !== 0) {
              const t = {};
              while (k !== 0 && pos < kvEnd) {
                t[str(k)] = str(varint());
                k = pos < kvEnd ? varint() : 0;
              }
              tagged.push(i);
              texts.push(JSON.stringify(t));
            }
            kv = pos;
          }
          i++;
        }
        if (ids !== idsEnd || lats !== latsEnd || lons !== lonsEnd) damaged('dense nodes of unequal lengths');
        pos = e;
      } else if (f === 3 && t === 2) {
        const e = sub(ge);
        let id = 0;
        const keys = [];
        const vals = [];
        let ref = 0;
        while (pos < e) {
          const k = varint();
          const kf = k >>> 3;
          const kt = k & 7;
          if (kf === 1 && kt === 0) id = int64();
          else if (kf === 2) repeated(kt, e, keys, varint);
          else if (kf === 3) repeated(kt, e, vals, varint);
          else if (kf === 8 && kt === 2) {
            const re = sub(e);
            while (pos < re) wayRefs[r++] = ref += zigzag(varint());
            if (pos !== re) damaged('way refs');
          } else if (kf === 8 && kt === 0) wayRefs[r++] = ref += zigzag(varint());
          else skip(kt);
        }
        if (pos !== e) damaged('way');
        wayIds[w] = id;
        wayRefEnds[w++] = r;
        wayTexts.push(keys.length ? tagsJson(keys, vals) : '');
      } else if (f === 4 && t === 2) {
        const e = sub(ge);
        let id = 0;
        const keys = [];
        const vals = [];
        const roles = [];
        const memids = [];
        const types = [];
        while (pos < e) {
          const k = varint();
          const kf = k >>> 3;
          const kt = k & 7;
          if (kf === 1 && kt === 0) id = int64();
          else if (kf === 2) repeated(kt, e, keys, varint);
          else if (kf === 3) repeated(kt, e, vals, varint);
          else if (kf === 8) repeated(kt, e, roles, int64);
          else if (kf === 9) repeated(kt, e, memids, () => zigzag(varint()));
          else if (kf === 10) repeated(kt, e, types, varint);
          else skip(kt);
        }
        if (pos !== e) damaged('relation');
        const tags = {};
        for (let k = 0; k < keys.length && k < vals.length; k++) tags[str(keys[k])] = str(vals[k]);
        const members = [];
        let mid = 0;
        for (let k = 0; k < memids.length && k < types.length; k++) {
          mid += memids[k];
          members.push({ type: MEMBER_TYPES[types[k]] || 'node', id: mid, role: k < roles.length && roles[k] < strStart.length ? str(roles[k]) : '' });
        }
        relations.push({ id, tags, members });
      } else skip(t);
    }
    if (pos !== ge) damaged('group');
  }
  buf = null;
  const all = texts.concat(wayTexts);
  const tagEnds = new Uint32Array(all.length);
  let end2 = 0;
  for (let k = 0; k < all.length; k++) tagEnds[k] = end2 += all[k].length;
  return {
    nodeIds, nodeLon, nodeLat, tagged: Uint32Array.from(tagged), wayIds, wayRefEnds, wayRefs,
    tagText: all.join(''), tagEnds, relations,
  };
}
`;
