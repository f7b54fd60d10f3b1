import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the operator CLI (built into dist/ by `npm run test:e2e`) as `npm run cli` would. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const script = join(process.cwd(), 'dist/apps/cli/src/main.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
