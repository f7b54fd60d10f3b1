import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../support/cli.js';
import { startRuntime, type Runtime } from '../support/runtime.js';

describe('operator CLI against the distributed database', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await startRuntime();
  });
  afterAll(async () => rt?.stop());

  it('migrate finds every schema up to date', async () => {
    const result = await runCli(['migrate'], rt.cliEnv);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const reports = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { schema: string; applied: string[] });
    expect(reports.map((r) => r.schema).sort()).toEqual(['admin', 'firmware', 'identity', 'logdata', 'registry', 'worker']);
    for (const report of reports) expect(report.applied).toEqual([]);
  });

  it('token create prints a token that the gateway accepts for that member', async () => {
    const customer = await rt.newCustomer({ tokens: false });
    const result = await runCli(['token', 'create', '--customer', customer.domain, '--email', customer.ownerEmail, '--bundle', 'uploader'], rt.cliEnv);
    expect(result.code).toBe(0);
    const token = result.stdout.trim();
    const me = await rt.http.get('/auth/me', { auth: token });
    expect(me.status).toBe(200);
    expect(me.json()).toMatchObject({ email: customer.ownerEmail, customer: customer.domain, role: 'owner' });
    const upload = await rt.http.get('/logdata', { auth: token });
    expect(upload.status).toBe(200);
  });

  it('refuses an unknown member and bad arguments with a clear message', async () => {
    const customer = await rt.newCustomer({ tokens: false });
    const unknown = await runCli(['token', 'create', '--customer', customer.domain, '--email', 'nobody@example.com'], rt.cliEnv);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/member not found/);
    const usage = await runCli(['token', 'create', '--customer', customer.domain], rt.cliEnv);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/needs --customer and --email/);
  });
});
