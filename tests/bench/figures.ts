/** Figures of one benchmark run, merged into one JSON object printed as the last line. */
export type Figures = Record<string, number>;

/**
 * More figure sources for the final line of `npm run bench:service` (imagery indexing,
 * search, stream): each returns its own keys, merged in order.
 */
export const EXTRA_FIGURES: (() => Promise<Figures>)[] = [];

export function printFigures(figures: Figures): void {
  process.stdout.write(JSON.stringify(figures) + '\n');
}
