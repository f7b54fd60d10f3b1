import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../support/cli.js';
import { startRuntime, type Runtime } from '../support/runtime.js';

describe('operator CLI in embedded mode', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await startRuntime();
  });
  afterAll(async () => rt?.stop());

  it('does not open the data directory of a running server, and says why', async () => {
    for (const args of [['migrate'], ['token', 'create', '--customer', rt.operatorDomain, '--email', rt.adminEmail]]) {
      const result = await runCli(args, rt.cliEnv);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/Another process \(pid \d+\) is using DATA_DIR .*: stop it first/);
    }
    // The running service is unharmed.
    expect((await rt.http.get('/status')).json()).toMatchObject({ status: 'ok' });
  });
});
