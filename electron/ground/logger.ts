import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  /** Log file (appended, one JSON line per entry); none means stderr only. */
  file?: string;
  level?: Level;
  /** Secret values to blank out of every line, read at write time so new keys are covered. */
  secrets?: () => Iterable<string>;
  /** Echo to stderr (default: only warnings and errors). */
  echo?: boolean;
  clock?: () => Date;
}

// Header values that must never reach a log, whatever their content.
const SENSITIVE_HEADER = /("?(authorization|x-api-key)"?\s*[:=]\s*"?)(bearer\s+)?[^"\s,}]+/gi;

export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text.replace(SENSITIVE_HEADER, '$1$3[redacted]');
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = ORDER[opts.level ?? 'info'];
  const clock = opts.clock ?? (() => new Date());
  if (opts.file) mkdirSync(dirname(opts.file), { recursive: true });
  const write = (level: Level, msg: string, extra?: unknown) => {
    if (ORDER[level] < min) return;
    const detail =
      extra instanceof Error ? { error: extra.message, stack: extra.stack } : extra === undefined ? undefined : extra;
    const line = redact(JSON.stringify({ t: clock().toISOString(), level, msg, detail }), opts.secrets?.() ?? []);
    if (opts.file) appendFileSync(opts.file, line + '\n');
    if (opts.echo || (!opts.file && ORDER[level] >= ORDER.warn) || (opts.echo !== false && level === 'error'))
      process.stderr.write(line + '\n');
  };
  return {
    debug: (m, e) => write('debug', m, e),
    info: (m, e) => write('info', m, e),
    warn: (m, e) => write('warn', m, e),
    error: (m, e) => write('error', m, e),
  };
}

/** A logger that keeps lines in memory; for tests that assert on what was logged. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (msg: string, extra?: unknown) =>
    lines.push(JSON.stringify({ level, msg, detail: extra instanceof Error ? extra.stack : extra }));
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}
