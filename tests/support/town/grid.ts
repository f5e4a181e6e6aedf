import { execFileSync, spawn } from 'node:child_process';
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

/** The grid town's counts for a number of nodes (what the generator writes). */
export function gridTownCounts(nodes: number): GridTown {
  const ways = Math.floor(nodes / 10);
  return { nodes, taggedNodes: Math.ceil(nodes / 20), ways, buildings: Math.ceil(ways / 10) };
}

/** The grid town's OSM XML, in chunks of about a megabyte. */
function* gridTownXml(nodes: number, seed: number): Generator<string> {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  let buf = '';
  const amenities = ['pharmacy', 'cafe', 'school', 'bank', 'restaurant'];
  buf += '<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="fieldlens-grid-town">\n';
  const side = Math.ceil(Math.sqrt(nodes));
  for (let i = 0; i < nodes; i++) {
    // 10-node runs along a row of the grid, about 11 m apart, so each way is a short street.
    const row = Math.floor(i / side);
    const col = i % side;
    const lon = (2 + col * 0.00015 + rand() * 0.00005).toFixed(7);
    const lat = (48 + row * 0.0001 + rand() * 0.00005).toFixed(7);
    if (i % 20 === 0) buf += `  <node id="${i + 1}" lat="${lat}" lon="${lon}">\n    <tag k="amenity" v="${amenities[(i / 20) % 5]}"/>\n    <tag k="name" v="Place ${i + 1}"/>\n  </node>\n`;
    else buf += `  <node id="${i + 1}" lat="${lat}" lon="${lon}"/>\n`;
    if (buf.length >= 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  const ways = Math.floor(nodes / 10);
  for (let w = 0; w < ways; w++) {
    const first = w * 10 + 1;
    const building = w % 10 === 0;
    buf += `  <way id="${w + 1}">\n`;
    for (let k = 0; k < 10; k++) buf += `    <nd ref="${first + k}"/>\n`;
    if (building) buf += `    <nd ref="${first}"/>\n`;
    buf += `    <tag k="${building ? 'building' : 'highway'}" v="${building ? 'yes' : 'residential'}"/>\n  </way>\n`;
    if (buf.length >= 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  yield buf + '</osm>\n';
}

export function writeGridTownXml(file: string, nodes: number, seed = 7): GridTown {
  const fd = openSync(file, 'w');
  try {
    for (const chunk of gridTownXml(nodes, seed)) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  return gridTownCounts(nodes);
}

/**
 * The grid town straight to PBF: the XML is piped into `osmium cat` as it is made, so the
 * big cases (several GB of XML for 50,000,000 nodes) never touch the disk and the generator
 * and osmium run side by side.
 */
export async function writeGridTownPbf(file: string, nodes: number, seed = 7): Promise<GridTown> {
  const osmium = spawn('osmium', ['cat', '--overwrite', '-F', 'osm', '-o', file, '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  osmium.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    osmium.on('error', reject);
    osmium.on('close', resolve);
  });
  // A write after osmium failed surfaces as its exit status below, not as an unhandled error.
  osmium.stdin.on('error', () => {});
  for (const chunk of gridTownXml(nodes, seed)) {
    if (osmium.exitCode !== null) break;
    if (!osmium.stdin.write(chunk)) await drained(osmium.stdin);
  }
  osmium.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`osmium cat failed (${code}): ${stderr.slice(-2000)}`);
  return gridTownCounts(nodes);
}

/** Resolves when a stream can take more, or has closed. */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

export function osmiumCat(from: string, to: string): void {
  execFileSync('osmium', ['cat', '--overwrite', '-o', to, from], { stdio: ['ignore', 'ignore', 'pipe'] });
}
