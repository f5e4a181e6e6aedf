import { spawn } from 'node:child_process';

export interface KillResult {
  signal: NodeJS.Signals | null;
  /** The last marker was `begin`: the kill landed inside a write. */
  inWrite: boolean;
  /** Lines the child printed ("begin …", "end …"), in order. */
  lines: string[];
}

/**
 * Runs a TypeScript child that prints `ready` once it has done its work once, and `begin` /
 * `end` lines around each write; SIGKILLs it `delayMs` after `ready`. Writes to a pipe are
 * synchronous on Linux, so each marker is out before the child's next step.
 */
export function runAndKill(script: string, args: string[], delayMs: number): Promise<KillResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      const wasReady = stdout.includes('ready\n');
      stdout += d.toString();
      if (!wasReady && stdout.includes('ready\n')) setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = stdout.split('\n').filter((l) => l.startsWith('begin') || l.startsWith('end'));
      if (signal === 'SIGKILL') resolve({ signal, inWrite: lines.at(-1)?.startsWith('begin') ?? false, lines });
      else reject(new Error(`child exited on its own (${code}): ${stderr}`));
    });
  });
}
