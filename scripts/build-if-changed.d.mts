// Types of build-if-changed.mjs for its test.
export const BUILD_INPUTS: string[];
export const BUILD_OUTPUTS: string[];
export function inputsHash(root: string, inputs?: string[]): string;
export function ensureBuilt(opts: {
  root: string;
  build: (logFile: string) => boolean;
  inputs?: string[];
  outputs?: string[];
  stampFile?: string;
  logFile?: string;
}): { built: boolean; hash: string };
export function viteBuild(root: string): (logFile: string) => boolean;
