import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * A large generated OSM file, the reference data of the layer benchmarks: a grid town of jittered nodes
 * (5 % tagged amenities) and ten-node ways (one in ten closed as a building), written as OSM
 * XML in chunks and converted to PBF with `osmium cat`. Returns the counts the file holds.
 */
export interface GridTown {
  nodes: number;
  taggedNodes: number;
  ways: number;
  buildings: number;
}

export function writeGridTownXml(file: string, nodes: number, seed = 7): GridTown {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const fd = openSync(file, 'w');
  let buf: string[] = [];
  const put = (x: string) => {
    buf.push(x);
    if (buf.length >= 20_000) {
      writeSync(fd, buf.join(''));
      buf = [];
    }
  };
  const amenities = ['pharmacy', 'cafe', 'school', 'bank', 'restaurant'];
  put('<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="fieldlens-grid-town">\n');
  const side = Math.ceil(Math.sqrt(nodes));
  let tagged = 0;
  for (let i = 0; i < nodes; i++) {
    // 10-node runs along a row of the grid, about 11 m apart, so each way is a short street.
    const row = Math.floor(i / side);
    const col = i % side;
    const lon = (2 + col * 0.00015 + rand() * 0.00005).toFixed(7);
    const lat = (48 + row * 0.0001 + rand() * 0.00005).toFixed(7);
    if (i % 20 === 0) {
      tagged++;
      put(`  <node id="${i + 1}" lat="${lat}" lon="${lon}">\n    <tag k="amenity" v="${amenities[(i / 20) % 5]}"/>\n    <tag k="name" v="Place ${i + 1}"/>\n  </node>\n`);
    } else put(`  <node id="${i + 1}" lat="${lat}" lon="${lon}"/>\n`);
  }
  const ways = Math.floor(nodes / 10);
  let buildings = 0;
  for (let w = 0; w < ways; w++) {
    const first = w * 10 + 1;
    const refs = Array.from({ length: 10 }, (_, k) => `    <nd ref="${first + k}"/>\n`);
    const building = w % 10 === 0;
    if (building) {
      buildings++;
      refs.push(`    <nd ref="${first}"/>\n`);
    }
    put(`  <way id="${w + 1}">\n${refs.join('')}    <tag k="${building ? 'building' : 'highway'}" v="${building ? 'yes' : 'residential'}"/>\n  </way>\n`);
  }
  put('</osm>\n');
  writeSync(fd, buf.join(''));
  closeSync(fd);
  return { nodes, taggedNodes: tagged, ways, buildings };
}

export function osmiumCat(from: string, to: string): void {
  execFileSync('osmium', ['cat', '--overwrite', '-o', to, from], { stdio: ['ignore', 'ignore', 'pipe'] });
}
