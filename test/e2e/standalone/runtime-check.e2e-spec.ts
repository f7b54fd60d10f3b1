import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

// Every entry point refuses a Node.js older than package.json's engines, before it loads
// anything (docs/operations.md, "Runtime"). The older runtime is simulated by overriding
// process.versions.node before the entry point runs.
const ENTRY_POINTS = readdirSync('dist/apps').map((app) => `dist/apps/${app}/src/main.js`);
const OLD_NODE = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.20.2"})';

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the Node.js runtime', () => {
  it('the tests run on the Node.js version the project pins', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };
    expect(process.versions.node).toBe(pkg.devDependencies.node);
  });

  it('every entry point refuses an older Node.js with one clear line, before starting anything', async () => {
    expect(ENTRY_POINTS).toHaveLength(9);
    for (const entry of ENTRY_POINTS) {
      const result = await run(['--import', OLD_NODE, entry]);
      expect({ entry, ...result }).toEqual({
        entry,
        code: 1,
        stdout: '',
        stderr: expect.stringMatching(/^Node\.js 20\.20\.2 is not supported: the service needs Node\.js 24\.11\.0 or later\. .*\n$/),
      });
    }
  });
});
