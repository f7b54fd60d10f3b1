import { Inject, Injectable } from '@nestjs/common';
import { AdminErrors, type BackupKeyView } from '@app/contracts';
import { readBackupKeyFile, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';

/** What an operator must set when backups are refused (no public key to encrypt to). */
export const BACKUPS_NOT_CONFIGURED = AdminErrors.backups_not_configured().message;

/** How a run's log names the key it reads with (never the key itself). */
export function keyUsed(fromRequest: string | null): string {
  return fromRequest ? 'the key sent with the request' : "the service's generated key";
}

/**
 * The backup keys the service has (docs/operations.md "Backups and restores"): the public key
 * archives are encrypted to, and, only for the pair the standalone service generated, the file
 * of its secret half. The secret key is read from that file for one verify or restore at a time
 * and held in memory for that run only (never in a job, a record or a log).
 */
@Injectable()
export class BackupKeys {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  /** Whether archives can be encrypted: there is a public key to encrypt to. */
  get configured(): boolean {
    return this.config.backup.publicKey !== null;
  }

  /** 409 saying what to set when backups are not configured. */
  assertConfigured(): void {
    if (!this.configured) throw AdminErrors.backups_not_configured();
  }

  /** For GET /admin/backups and the console's page. */
  view(): BackupKeyView {
    const { publicKey, generatedKeyFile } = this.config.backup;
    return {
      source: generatedKeyFile ? 'generated' : publicKey ? 'configured' : 'none',
      public_key: publicKey,
      secret_key_file: generatedKeyFile,
    };
  }

  /** The secret key a verify or restore reads with: the request's, else the generated pair's; 400 when there is neither. */
  async identity(fromRequest: string | null): Promise<string> {
    if (fromRequest) return fromRequest;
    const file = this.config.backup.generatedKeyFile;
    if (!file) throw AdminErrors.backup_key_required();
    try {
      return await readBackupKeyFile(file);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? 'it holds no age secret key';
      throw AdminErrors.backup_key_unreadable({ file, reason });
    }
  }
}
