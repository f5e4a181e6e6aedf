/** A position in decimal degrees as the status line shows it: latitude first, five decimals (about a metre). */
export function coordinateText(lon: number, lat: number): string {
  // The map wraps around the world; the pointer's longitude is brought back into -180..180.
  const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
  return `${lat.toFixed(5)}, ${wrapped.toFixed(5)}`;
}
