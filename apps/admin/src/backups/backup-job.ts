/** The job queue of backups: its data is the run id only (StartBackup adds, BackupJobs runs it). */
export const BACKUP_JOB = { queue: 'backup' } as const;
