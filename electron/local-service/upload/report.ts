import type { UploadWarning } from './types';

/** Rows and values listed one by one in a warning; the rest are counted in `more`. */
export const LISTED = 20;

export interface BadRow {
  file: string;
  line: number;
  reason: string;
}

export interface TruncatedValue {
  file: string;
  /** Null for the file name itself. */
  line: number | null;
  column: string;
  length: number;
}

/** What a report holds, as plain data: it crosses from a parsing worker to the request's report. */
export interface ReportState {
  bad: BadRow[];
  badCount: number;
  cut: TruncatedValue[];
  cutCount: number;
  other: UploadWarning[];
}

/** Collects what the readers of one request left out or changed, as response warnings. */
export class UploadReport {
  private bad: BadRow[] = [];
  private badCount = 0;
  private cut: TruncatedValue[] = [];
  private cutCount = 0;
  private other: UploadWarning[] = [];

  badRow(file: string, line: number, reason: string): void {
    if (this.bad.length < LISTED) this.bad.push({ file, line, reason });
    this.badCount++;
  }

  truncated(v: TruncatedValue): void {
    if (this.cut.length < LISTED) this.cut.push(v);
    this.cutCount++;
  }

  warn(w: UploadWarning): void {
    this.other.push(w);
  }

  state(): ReportState {
    return { bad: this.bad, badCount: this.badCount, cut: this.cut, cutCount: this.cutCount, other: this.other };
  }

  /** Adds what another report (of one file, read elsewhere) holds, as if it had been reported here. */
  merge(s: ReportState): void {
    for (const b of s.bad) if (this.bad.length < LISTED) this.bad.push(b);
    this.badCount += s.badCount;
    for (const c of s.cut) if (this.cut.length < LISTED) this.cut.push(c);
    this.cutCount += s.cutCount;
    this.other.push(...s.other);
  }

  /** Bad rows of one file so far (the first LISTED of them across files are kept). */
  badRowsOf(file: string): BadRow[] {
    return this.bad.filter((b) => b.file === file);
  }

  warnings(): UploadWarning[] {
    const out: UploadWarning[] = [...this.other];
    if (this.badCount) {
      const first = this.bad.slice(0, 3).map((b) => `${b.file} line ${b.line}: ${b.reason}`).join('; ');
      out.push({
        code: 'bad_rows',
        message: `${this.badCount} row(s) could not be read and were left out (${first}${this.badCount > 3 ? '; …' : ''})`,
        rows: this.bad,
        more: this.badCount - this.bad.length,
      });
    }
    if (this.cutCount) {
      const first = this.cut[0]!;
      out.push({
        code: 'truncated_values',
        message: `${this.cutCount} long value(s) were shortened in the results (first: ${first.file}${first.line !== null ? ` line ${first.line}` : ''}, ${first.column === '(file name)' ? 'its name' : `column "${first.column}"`}, ${first.length.toLocaleString('en')} characters)`,
        values: this.cut,
        more: this.cutCount - this.cut.length,
      });
    }
    return out;
  }
}
