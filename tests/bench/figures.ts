import type { ServiceProcess } from './service-harness';

/** Figures of one benchmark run, merged into one JSON object printed as the last line. */
export type Figures = Record<string, number>;

/**
 * More figure sources for the final line of `npm run bench:service` (imagery indexing, search,
 * stream): each gets the running service (its base URL and keys are in service-harness) and
 * returns its own keys, e.g. { search_p50_ms: 4 }. They run in order after the compute figures.
 */
export type FigureSource = (svc: ServiceProcess) => Promise<Figures>;

export function mergeFigures(into: Figures, more: Figures): Figures {
  for (const [k, v] of Object.entries(more)) {
    if (k in into) throw new Error(`benchmark figure ${k} reported twice`);
    into[k] = v;
  }
  return into;
}

export function printFigures(figures: Figures): void {
  process.stdout.write(JSON.stringify(figures) + '\n');
}
