import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ArchiveError, generateBackupKeyPair, identityFromText, readArchive } from '@app/infra';

/**
 * `backup keygen` and `backup verify` (docs/operations.md "Backups and restores"): both work
 * on any machine with the project installed, with no service, database or network (but
 * `--report`, which posts the result to a running service).
 */
export class BackupUsageError extends Error {}

export const BACKUP_USAGE = `  backup keygen                         Print a new backup key pair: a key file (stdout) whose public key goes into
                                        BACKUP_PUBLIC_KEY and whose secret key stays off the service.
  backup verify <archive file> --key <key file | env:VARIABLE> [--report <base url> --token <admin token>]
                                        Decrypt an archive and check it against its manifest, offline; with --report,
                                        record the result on the service (POST /admin/backups/verify-report).`;

/** age-keygen's key file format: comment lines, then the secret key. */
export async function keygen(): Promise<void> {
  const { publicKey, secretKey } = await generateBackupKeyPair();
  console.log(`# created: ${new Date().toISOString()}\n# public key: ${publicKey}\n${secretKey}`);
  console.error(
    [
      `public key (on the service): BACKUP_PUBLIC_KEY=${publicKey}`,
      'secret key (above, on stdout): keep it OFF the service, e.g. in a password manager or a safe, and on the machines that verify;',
      'verify and restore take it as backup_key_b64: base64 -w0 < the key file. Without it no archive can be read.',
    ].join('\n'),
  );
}

async function readKey(spec: string): Promise<string> {
  let text: string;
  if (spec.startsWith('env:')) {
    text = process.env[spec.slice(4)] ?? '';
    if (!text) throw new BackupUsageError(`--key ${spec}: the variable is not set`);
    if (!text.includes('AGE-SECRET-KEY-')) text = Buffer.from(text, 'base64').toString('utf8');
  } else {
    text = await readFile(spec, 'utf8');
  }
  return identityFromText(text);
}

export async function verify(args: string[], flags: (args: string[]) => Record<string, string>): Promise<number> {
  const [file, ...rest] = args;
  if (!file || file.startsWith('--')) throw new BackupUsageError('backup verify needs the archive file');
  const options = flags(rest);
  if (!options.key) throw new BackupUsageError('backup verify needs --key <key file | env:VARIABLE>');
  if (Boolean(options.report) !== Boolean(options.token)) throw new BackupUsageError('--report and --token go together');
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
  console.log(`${ok ? 'OK' : 'FAILED'} ${archiveName}: ${detail}`);
  if (options.report) {
    const reply = await fetch(`${options.report.replace(/\/+$/, '')}/admin/backups/verify-report`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ archive_name: archiveName, ok, detail }),
    });
    if (reply.status !== 200) throw new Error(`the report was refused: ${reply.status} ${await reply.text()}`);
    console.error(`reported as run ${((await reply.json()) as { id: string }).id}`);
  }
  return ok ? 0 : 1;
}
