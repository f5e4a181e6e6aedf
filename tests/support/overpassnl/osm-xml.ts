import type { Element } from './ql-run';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const tagXml = (tags: Record<string, string>) => Object.entries(tags).map(([k, v]) => `<tag k="${esc(k)}" v="${esc(v)}"/>`).join('');

/**
 * OSM XML of an extract, for the service's layer import: tagged nodes as they are; a way's ring
 * through untagged vertex nodes; a relation as one untagged closed outer way. Vertex nodes and
 * member ways take ids from `firstFreeId` up, so they never meet the elements' own.
 */
export function extractXml(elements: readonly Element[], firstFreeId: number): string {
  let next = firstFreeId;
  const nodes: string[] = [];
  const ways: string[] = [];
  const relations: string[] = [];
  const ringWay = (coords: [number, number][], id: number, tags: Record<string, string>) => {
    const refs: number[] = [];
    for (const [lon, lat] of coords.slice(0, -1)) {
      const n = next++;
      nodes.push(`<node id="${n}" version="1" lat="${lat.toFixed(7)}" lon="${lon.toFixed(7)}"/>`);
      refs.push(n);
    }
    refs.push(refs[0]!);
    ways.push(`<way id="${id}" version="1">${refs.map((r) => `<nd ref="${r}"/>`).join('')}${tagXml(tags)}</way>`);
  };
  for (const e of elements) {
    if (e.type === 'node') {
      const [lon, lat] = e.coords[0]!;
      nodes.push(`<node id="${e.id}" version="1" lat="${lat.toFixed(7)}" lon="${lon.toFixed(7)}">${tagXml(e.tags)}</node>`);
    } else if (e.type === 'way') ringWay(e.coords, e.id, e.tags);
    else {
      const member = next++;
      ringWay(e.coords, member, {});
      relations.push(`<relation id="${e.id}" version="1"><member type="way" ref="${member}" role="outer"/>${tagXml(e.tags)}</relation>`);
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="fieldlens-bench">\n${[...nodes, ...ways, ...relations].join('\n')}\n</osm>\n`;
}
