import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ArchiveError, generateBackupKeyPair, identityFromText, readArchive } from '@app/infra';
import { type AdminAccess, callAdmin } from './admin-api.js';
import { UsageError } from './args.js';
import type { CliContext } from './cli-context.js';

/**
 * `backup keygen` and `backup verify` (docs/operations.md "Backups and restores"): both work
 * on any machine with the project installed, with no service, database or network (but
 * `--report`, which posts the result to a running service).
 */

/** age-keygen's key file format: comment lines, then the secret key. */
export async function keygen(cli: CliContext, json: boolean): Promise<number> {
  const { publicKey, secretKey } = await generateBackupKeyPair();
  const created = new Date().toISOString();
  if (json) cli.out(JSON.stringify({ created_at: created, public_key: publicKey, secret_key: secretKey }));
  else cli.out(`# created: ${created}\n# public key: ${publicKey}\n${secretKey}`);
  cli.err(
    [
      `public key (on the service): BACKUP_PUBLIC_KEY=${publicKey}`,
      'secret key (above, on stdout): keep it OFF the service, e.g. in a password manager or a safe, and on the machines that verify;',
      'verify and restore take it as backup_key_b64: base64 -w0 < the key file. Without it no archive can be read.',
    ].join('\n'),
  );
  return 0;
}

async function readKey(spec: string): Promise<string> {
  let text: string;
  if (spec.startsWith('env:')) {
    text = process.env[spec.slice(4)] ?? '';
    if (!text) throw new UsageError(`--key ${spec}: the variable is not set`);
    if (!text.includes('AGE-SECRET-KEY-')) text = Buffer.from(text, 'base64').toString('utf8');
  } else {
    text = await readFile(spec, 'utf8');
  }
  return identityFromText(text);
}

export interface VerifyOptions {
  readonly key: string;
  /** Where to record the result (POST /admin/backups/verify-report), with an admin token. */
  readonly report?: AdminAccess;
  readonly json: boolean;
}

export async function verify(file: string, options: VerifyOptions, cli: CliContext): Promise<number> {
  const identity = await readKey(options.key);
  const archiveName = basename(file);
  let ok = false;
  let detail: string;
  try {
    await stat(file);
    const summary = await readArchive(createReadStream(file, { highWaterMark: 256 * 1024 }), identity);
    const rows = summary.manifest.dumps.map((d) => `${d.app} ${d.tables.reduce((n, t) => n + t.rows, 0)} rows`).join(', ');
    detail = `verified offline: ${summary.objectCount} entries, ${summary.totalBytes} bytes, archive made ${summary.manifest.created_at}; ${summary.manifest.files.length} files; ${rows}`;
    ok = true;
  } catch (err) {
    if (!(err instanceof ArchiveError) && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    detail = err instanceof ArchiveError ? err.message : `cannot read ${file}`;
  }
  let reportId: string | undefined;
  if (options.report) {
    const run = (await callAdmin(options.report, 'POST', '/admin/backups/verify-report', { json: { archive_name: archiveName, ok, detail } })) as {
      id: string;
    };
    reportId = run.id;
  }
  if (options.json) cli.out(JSON.stringify({ archive_name: archiveName, ok, detail, ...(reportId ? { report_id: reportId } : {}) }));
  else cli.out(`${ok ? 'OK' : 'FAILED'} ${archiveName}: ${detail}`);
  if (reportId && !options.json) cli.err(`reported as run ${reportId}`);
  return ok ? 0 : 1;
}
