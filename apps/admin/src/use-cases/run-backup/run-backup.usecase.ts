import { Inject, Injectable } from '@nestjs/common';
import { AppDataMessages, BACKUP_APPS, type AppDataExportReply, type StoredFileRef } from '@app/contracts';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  ArchiveWriter,
  BackupStore,
  dumpEntryName,
  fileEntryName,
  JsonLogger,
  type ManifestDump,
  type ManifestFile,
  MessageBus,
  ObjectStore,
  readAhead,
  type ServiceConfig,
} from '@app/infra';
import { readStoredFileRefs, SERVICE_CONFIG } from '@app/platform';
import { errorText, removeWork, RunLog, workKey } from '../../backups/run-log.js';
import { Clock } from '../../services/clock.js';
import { AdminStore } from '../../repositories/admin.store.js';

/** Files between two progress lines of the log. */
const PROGRESS_EVERY_FILES = 1000;
/** Stored files read ahead of the archive: small ones whole, several at once (S3 latency, disk seeks), into buffers used again (writer.add copies each into the archive before it resolves). */
const READ_AHEAD = { concurrency: 16, maxObjectBytes: 1024 * 1024, maxBufferedBytes: 16 * 1024 * 1024, reuseBuffers: true };

/** The refs whose key `seen` does not hold yet (one file referred to by two apps is archived once). */
async function* notSeenBefore(refs: AsyncIterable<StoredFileRef>, seen: Set<string>): AsyncIterable<StoredFileRef> {
  for await (const ref of refs) {
    if (seen.has(ref.key)) continue;
    seen.add(ref.key);
    yield ref;
  }
}

/**
 * Runs a queued backup (docs/operations.md "Backups and restores"): every app exports its
 * data from one snapshot into the object store, then one archive is streamed to the backup
 * store: each dump, every stored file the dumps list (read from the object store; a missing
 * one fails the run naming it), and the manifest; encrypted to BACKUP_PUBLIC_KEY on the way.
 * Memory stays bounded whatever the size: one entry goes into the archive at a time, the next
 * small files read ahead of it up to READ_AHEAD's bytes. Idempotent: a run
 * already finished is left alone; one found running (its process died) starts over.
 */
@Injectable()
export class RunBackup {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(BackupStore) private readonly store: BackupStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(runId: string): Promise<void> {
    const run = await this.adminStore.repos.backupRuns.get(runId);
    if (!run || run.status === 'succeeded' || run.status === 'failed' || !run.archive_name) return;
    await this.adminStore.repos.backupRuns.start(runId, this.clock.now());
    const log = new RunLog(this.adminStore.repos.backupRuns, runId, this.clock);
    const archiveName = run.archive_name;
    try {
      const publicKey = this.config.backup.publicKey;
      if (!publicKey) throw new Error('BACKUP_PUBLIC_KEY is not set: archives cannot be encrypted');
      await log.line(`backup to ${archiveName} on the ${this.store.kind} backend`);
      const exports: AppDataExportReply[] = [];
      for (const app of BACKUP_APPS) {
        const reply = await this.bus.send(AppDataMessages.export(app), { runId, objectKey: workKey(runId, app) });
        const rows = reply.tables.reduce((sum, t) => sum + t.rows, 0);
        await log.line(`${app}: exported ${reply.tables.length} tables, ${rows} rows, ${reply.fileCount} stored files (${reply.bytes} bytes of dump)`);
        exports.push(reply);
      }
      const { objectCount, totalBytes, archiveBytes } = await this.writeArchive(archiveName, publicKey, exports, log);
      await log.line(`archive written: ${objectCount} entries, ${totalBytes} bytes, ${archiveBytes} bytes encrypted`);
      await this.adminStore.repos.backupRuns.finish(runId, { status: 'succeeded', objectCount, totalBytes, finishedAt: this.clock.now() });
      this.logger.info('backup written', { runId, archiveName, objectCount, totalBytes });
    } catch (err) {
      const error = errorText(err);
      await log.line(`failed: ${error}`).catch(() => undefined);
      await this.adminStore.repos.backupRuns.finish(runId, { status: 'failed', error, finishedAt: this.clock.now() });
      this.logger.warn('backup failed', { runId, error });
    } finally {
      log.stop();
      await removeWork(this.objects, runId);
    }
  }

  private async writeArchive(
    archiveName: string,
    publicKey: string,
    exports: readonly AppDataExportReply[],
    log: RunLog,
  ): Promise<{ objectCount: number; totalBytes: number; archiveBytes: number }> {
    const writer = new ArchiveWriter(publicKey);
    const written = writer.output.then((output) => this.store.write(archiveName, output));
    // A failure of the store ends the writing at once (not only once every entry was added).
    written.catch((err: unknown) => writer.abort(err instanceof Error ? err : new Error(String(err))));
    const dumps: ManifestDump[] = [];
    /** The files' hashes come from the cipher thread while the next files are written. */
    const files: Array<Omit<ManifestFile, 'sha256'> & { sha256: () => Promise<string> }> = [];
    const keys = new Set<string>();
    let totalBytes = 0;
    try {
      for (const e of exports) {
        const body = await this.objects.get(e.objectKey);
        if (!body) throw new Error(`the dump of ${e.app} is missing from the object store`);
        const entry = dumpEntryName(e.app);
        const sha256 = await (await writer.add(entry, e.bytes, body)).sha256();
        if (sha256 !== e.sha256) throw new Error(`the dump of ${e.app} changed after its export (SHA-256 differs)`);
        dumps.push({ app: e.app, entry, bytes: e.bytes, sha256, format_version: e.formatVersion, tables: e.tables });
        totalBytes += e.bytes;
      }
      for (const e of exports) {
        const refs = readStoredFileRefs(this.objects, e.filesObjectKey);
        for await (const { ref, body } of readAhead(this.objects, notSeenBefore(refs, keys), READ_AHEAD)) {
          if (!body) throw new Error(`stored file ${ref.key} (a row of ${e.app} refers to it) is missing from the object store`);
          const { sha256 } = await writer.add(fileEntryName(ref.key), ref.size, body).catch((err: unknown) => {
            throw new Error(`stored file ${ref.key} of ${e.app}: ${errorText(err)}`);
          });
          files.push({ key: ref.key, size: ref.size, sha256 });
          totalBytes += ref.size;
          if (files.length % PROGRESS_EVERY_FILES === 0) await log.line(`${files.length} stored files written, ${totalBytes} bytes so far`);
        }
      }
      await writer.finish({
        format: ARCHIVE_FORMAT,
        format_version: ARCHIVE_FORMAT_VERSION,
        archive_name: archiveName,
        created_at: this.clock.now().toISOString(),
        dumps,
        files: await Promise.all(files.map(async (f) => ({ key: f.key, size: f.size, sha256: await f.sha256() }))),
      });
    } catch (err) {
      writer.abort(err instanceof Error ? err : new Error(String(err)));
      await written.catch(() => undefined);
      await this.store.delete(archiveName).catch(() => undefined);
      throw err;
    }
    const archiveBytes = await written;
    return { objectCount: dumps.length + files.length, totalBytes, archiveBytes };
  }
}
