// Types of electron-audit.mjs for its test.
export const BLOCKING: string[];
export const AUDITED: string[];
export interface Finding {
  id: string;
  severity: string;
  confidence: string;
  file: string;
  line: number;
  description: string;
}
export function audit(opts?: { base?: string; files?: string[] }): Promise<{
  checks: number;
  findings: Finding[];
  blocking: Finding[];
  parseErrors: string[];
}>;
