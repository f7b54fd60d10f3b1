import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
/** Client libraries of the distributed adapters only: loaded by the adapter when first made (docs/performance.md "Memory of the embedded default"). */
const DISTRIBUTED_CLIENTS = /^(bullmq|ioredis|nodemailer|@aws-sdk\/.+)$/;
const SCANNED = ['libs/infra/src', 'apps/gateway/src/rate-limit'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('the distributed adapters’ client libraries', () => {
  it('are imported as types only at module load, so the standalone process never loads them', () => {
    const found: string[] = [];
    for (const file of SCANNED.flatMap((dir) => sources(join(root, dir)))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+'([^']+)'/gms)) {
        if (DISTRIBUTED_CLIENTS.test(match[1]!)) found.push(`${relative(root, file)}: ${match[1]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
