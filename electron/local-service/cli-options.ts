import { statSync } from 'node:fs';
import { suffixTextOf } from '../../shared/formats';

/** Words folded to the help's width (96 columns), later lines indented to the option's text. */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > 96) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join(`\n${' '.repeat(indent)}`);
}

export const HELP = `Usage: npm run service -- [options]     (or: npx tsx electron/local-service/cli.ts [options])

Runs the bundled Fieldlens service alone on 127.0.0.1: POST {base_url}/v1/compute and the
POST {base_url}/v1/stream and the imagery-search host {search_base_url}, over the bundled
open-data catalog and geotagged photos.
"npm run service" builds when the sources changed since the last build, then runs out/main/service.js.

Keys: give them in the environment (FIELDLENS_SERVICE_KEY, FIELDLENS_SERVICE_SEARCH_KEY) or in
a key file (--key-file). Keys on the command line are visible to every user of this machine
(ps, /proc) and npm echoes them into its logs.

  --port N            compute/stream port (default 0: any free port)
  --search-port N     imagery-search port (default 0: any free port)
  --data-dir DIR      folder of the service database (default: <app data>/local-service)
  --key-file FILE     read the keys from FILE, one NAME=value a line:
                        FIELDLENS_SERVICE_KEY=...
                        FIELDLENS_SERVICE_SEARCH_KEY=...
                      (make it readable by you only: chmod 600 FILE)
  --key KEY           Bearer key for compute/stream; visible to other users of this machine,
                      prefer FIELDLENS_SERVICE_KEY or --key-file
  --search-key KEY    x-api-key for imagery search; visible to other users of this machine,
                      prefer FIELDLENS_SERVICE_SEARCH_KEY or --key-file
  --photos DIR        a folder of geotagged photos for stream and imagery search (repeatable)
  --no-sample         leave the bundled sample photos out of the imagery catalog
  --no-detect         do not look at photos with the object and face detectors (worker threads)
  --layer FILE        import a data layer into the data folder before starting (repeatable; kept
                      across restarts) of these kinds:
                      ${wrap(suffixTextOf('layer'), 22)}
  --answer-fault      make every answer generation fail (status "failed", results intact)
  --retention-days N  delete saved searches older than N days (default 30; 0: no age limit)
  --retention-mb N    delete the oldest saved searches once they and their stored files pass
                      N MiB (default 512; 0: no size limit); without --database, until the
                      database file with its WAL is N MiB or less. Either way a search a kept one
                      continues (its thread) stays; retention runs at start, then every 10 min
  --upload-budget-mb N  upload bytes all requests in flight may declare together (default 256);
                      past it, 503 with Retry-After. Each request: 10 files of 20 MiB at most
  --wrong-key-limit N wrong keys per client address and minute before 429 with Retry-After
                      (default 20; 0: no limit); the right key is still served meanwhile
  --json              print {"baseUrl","searchBaseUrl"} as one JSON line once listening

Team service (see electron/local-service/README.md, "Team service"):
  --database URL      keep saved queries, uploads and layers in PostgreSQL + PostGIS
                      (postgres://user:password@host:5432/db; or FIELDLENS_DATABASE_URL)
  --replica URL       a streaming replica of --database (repeatable; or FIELDLENS_REPLICA_URLS,
                      comma-separated): layer questions, continuations and imagery searches
                      read there, by fewest outstanding requests, once it has replayed what
                      they must see; writes stay on the primary. /health lists each database
  --replica-max-lag S a replica further behind than S seconds is left out until it catches up
                      (default 5)
  --users-file FILE   keys mapped to users, stored as scrypt hashes (replaces the two keys);
                      one "<user> <key id> scrypt$..." line per key
  --new-key USER      make a key for USER: prints the key once and its users-file line
  --rate-limit N      requests per minute per key (429 with Retry-After past it)
  --host ADDR         listen address (default 127.0.0.1; 0.0.0.0 in a container)
  --access-log        one JSON log line per request (on with --database or --users-file)
  --log-level LEVEL   debug, info (default), warn, error; debug also logs request bodies
  --drain-seconds N   on SIGTERM/SIGINT, let requests in flight finish for up to N s (default 30)
  --workers N         run N service processes on the same ports (node:cluster; needs --database,
                      where they share their state); each connection goes to the process holding
                      the fewest, and a worker that dies is replaced
  -h, --help          this text
`;

const BEARER = 'FIELDLENS_SERVICE_KEY';
const SEARCH = 'FIELDLENS_SERVICE_SEARCH_KEY';

export interface KeySources {
  key?: string;
  searchKey?: string;
  keyFile?: string;
  env: Record<string, string | undefined>;
  readFile: (path: string) => string;
  /** File mode bits, to warn about key files others can read (null where unknown). */
  modeOf?: (path: string) => number | null;
}

export type Keys = { ok: true; bearer: string; search: string; warnings: string[] } | { ok: false; error: string };

/** Reads `NAME=value` lines (blank lines and # comments skipped; optional quotes around the value). */
export function parseKeyFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Z0-9_]+)\s*=\s*(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

export const fileMode = (path: string): number | null => {
  try {
    return statSync(path).mode;
  } catch {
    return null;
  }
};

/** The two keys: flags first, then the key file, then the environment. */
export function resolveKeys(s: KeySources): Keys {
  const warnings: string[] = [];
  let file: Record<string, string> = {};
  if (s.keyFile) {
    let text: string;
    try {
      text = s.readFile(s.keyFile);
    } catch (e) {
      return { ok: false, error: `Cannot read the key file ${s.keyFile}: ${(e as Error).message}` };
    }
    file = parseKeyFile(text);
    const mode = s.modeOf?.(s.keyFile) ?? null;
    if (mode !== null && process.platform !== 'win32' && (mode & 0o077) !== 0)
      warnings.push(`The key file ${s.keyFile} can be read by other users; make it private with: chmod 600 ${s.keyFile}`);
  }
  if (s.key !== undefined || s.searchKey !== undefined)
    warnings.push(`Keys given with --key/--search-key are visible to other users of this machine; prefer ${BEARER}/${SEARCH} or --key-file.`);
  const bearer = s.key ?? file[BEARER] ?? s.env[BEARER];
  const search = s.searchKey ?? file[SEARCH] ?? s.env[SEARCH];
  if (!bearer || !search)
    return {
      ok: false,
      error: `Both keys are required: set ${BEARER} and ${SEARCH} in the environment or in a --key-file (or give --key and --search-key).`,
    };
  return { ok: true, bearer, search, warnings };
}
