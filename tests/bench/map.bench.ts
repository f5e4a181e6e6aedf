// npm run bench:map: loads 100k and 1M points into the workspace map in headless Chromium (the
// Debian build the e2e tests use) and prints, as its last line, one JSON object:
//   first_frame_100k_ms, first_frame_1m_ms  WebGL, from handing the set to the map to its first complete frame
//   canvas_100k_ms                          the plain canvas vector layer, same run, same points
//   basemap_tile_ms_p50, basemap_first_frame_ms  the street basemap (see map-basemap.ts)
// The points are in page memory before the clock starts, as a store holds a cached response.
// Targets: 100k <= 500 ms, 1M <= 2,000 ms. Figures only; nothing here fails a build, but a page
// that never gets ready or never draws fails the run with the step it was stuck at, and so does a
// frame read back without the layer's colour around every one of 200 sampled points (or with it
// when there are no points).
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from '@playwright/test';
import { build } from 'vite';
import { printFigures } from './figures';
import { basemapFigures } from './map-basemap';

/** Longest wait for any one step (page ready, one set drawn); a hang fails the run, it does not wait on. */
const STEP_LIMIT_MS = 120_000;
/** Set sizes; smaller ones for a quick check on a busy machine (the figures' names stay). */
const SMALL = Number(process.env['BENCH_MAP_SMALL'] ?? 100_000);
const LARGE = Number(process.env['BENCH_MAP_LARGE'] ?? 1_000_000);
/** BENCH_MAP_BASEMAP_ONLY=1: the street basemap's figures alone (the point sets are skipped). */
const BASEMAP_ONLY = process.env['BENCH_MAP_BASEMAP_ONLY'] === '1';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

async function main(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'fl-bench-map-'));
  await build({
    root: join(import.meta.dirname, 'map-page'),
    base: './',
    logLevel: 'warn',
    configFile: false,
    build: { outDir: out, emptyOutDir: true, chunkSizeWarningLimit: 10_000 },
  });
  const server = createServer((req, res) => {
    const asked = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const path = asked === '/' ? '/index.html' : asked;
    try {
      const body = readFileSync(join(out, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      // (The page has no favicon; that 404 is no problem.)
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    page.setDefaultTimeout(STEP_LIMIT_MS);
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction('document.title === "ready"', undefined, { timeout: 30_000 }).catch((e: unknown) => {
      throw new Error(`the bench page did not get ready in 30 s${problems.length ? `: ${problems.join('; ')}` : ''}`, { cause: e });
    });
    type Drawn = { found: number; sampled: number; colourPixels: number };
    type Run = { ms: number; mode: string; steps: Record<string, number>; samples: { x: number; y: number }[]; drawn: Drawn };
    // After each run (not timed), the frame as the screen shows it: a dot (radius 3.5 to 5 px)
    // covers every point it stands for, a cluster's disc lies within its distance of its members.
    const readBack = async (r: Omit<Run, 'drawn'>): Promise<Run> => {
      const png = (await page.screenshot()).toString('base64');
      const reach = r.mode === 'cluster' ? 48 : 6;
      const drawn = await page.evaluate(
        ([png, samples, reach]) => (globalThis as unknown as { drawnIn: (p: string, s: { x: number; y: number }[], r: number) => Promise<Drawn> }).drawnIn(png, samples, reach),
        [png, r.samples, reach] as const,
      );
      return { ...r, drawn };
    };
    const bench = (n: number, webgl: boolean) =>
      page
        .evaluate(
          ([n, webgl, limit]) => (globalThis as unknown as { bench: (n: number, w: boolean, l: number) => Promise<Omit<Run, 'drawn'>> }).bench(n, webgl, limit),
          [n, webgl, STEP_LIMIT_MS] as const,
        )
        .then(readBack)
        .catch((e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          throw new Error(`${message}${problems.length ? `\npage errors: ${problems.join('; ')}` : ''}`, { cause: e });
        });
    console.log(`load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
    if (BASEMAP_ONLY) {
      printFigures(await basemapFigures(page, STEP_LIMIT_MS));
      return;
    }
    // One small run first so code and shaders are compiled before anything is timed.
    await bench(10_000, true);
    const w100k = await bench(SMALL, true);
    const w1m = await bench(LARGE, true);
    const c100k = await bench(SMALL, false);
    // No points: what the basemap's own frame costs, the floor under every figure above.
    const none = await bench(0, true);
    for (const [label, r] of [['100k', w100k], ['1M', w1m], ['canvas 100k', c100k], ['no points', none]] as const) {
      const steps = Object.entries(r.steps).map(([k, v]) => `${k} ${Math.round(v)}`);
      console.log(`${label.padEnd(12)} ${r.mode.padEnd(7)} ${Math.round(r.ms)} ms (${steps.join(', ')}); drawn ${r.drawn.found}/${r.drawn.sampled} sampled points, ${r.drawn.colourPixels} pixels of the layer's colour`);
    }
    for (const [label, r] of [['100k', w100k], ['1M', w1m], ['canvas 100k', c100k]] as const)
      if (r.drawn.sampled === 0 || r.drawn.found < r.drawn.sampled) throw new Error(`${label}: only ${r.drawn.found} of ${r.drawn.sampled} sampled points drawn in the timed frame`);
    // The colour test must not find the basemap: with no points, no pixel has the layer's colour.
    if (none.drawn.colourPixels !== 0) throw new Error(`a frame with no points has ${none.drawn.colourPixels} pixels of the layer's colour`);
    console.log(`load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
    const basemap = await basemapFigures(page, STEP_LIMIT_MS);
    printFigures({
      first_frame_100k_ms: Math.round(w100k.ms),
      first_frame_1m_ms: Math.round(w1m.ms),
      canvas_100k_ms: Math.round(c100k.ms),
      ...basemap,
    });
  } finally {
    await browser.close();
    server.close();
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
