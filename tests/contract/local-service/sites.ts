/** A generated CSV of `rows` sites spread over the globe (about 35 bytes a row: 300,000 rows is 10 MB). */
export function sitesCsv(rows: number): string {
  const out = ['name,lat,lon,kind,value'];
  for (let i = 0; i < rows; i++) {
    const lat = ((i * 7919) % 1400000) / 10000 - 60;
    const lon = ((i * 104729) % 3400000) / 10000 - 170;
    out.push(`s${i},${lat.toFixed(4)},${lon.toFixed(4)},${i % 3 ? 'depot' : 'store'},${(i % 1000) / 4}`);
  }
  return out.join('\n') + '\n';
}
