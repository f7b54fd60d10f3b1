import { Inject, Injectable } from '@nestjs/common';
import { OutboxRepository } from '@app/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { BuildRepository } from './build.repository.js';
import { RolloutRepository } from './rollout.repository.js';
import { TagSyncRepository } from './tag-sync.repository.js';
import { UpdateSigningKeyRepository } from './update-signing-key.repository.js';

export interface FirmwareRepositories {
  readonly builds: BuildRepository;
  readonly tagSync: TagSyncRepository;
  /** The keys that sign update-check answers. */
  readonly updateSigningKeys: UpdateSigningKeyRepository;
  /** Audit entries on their way to the admin app (OutboxRelay). */
  readonly outbox: OutboxRepository;
  /** Staged rollouts of builds and the evaluator's lease. */
  readonly rollouts: RolloutRepository;
}

export function createRepositories(manager: EntityManager): FirmwareRepositories {
  return {
    builds: new BuildRepository(manager),
    tagSync: new TagSyncRepository(manager),
    updateSigningKeys: new UpdateSigningKeyRepository(manager),
    outbox: new OutboxRepository(manager, 'firmware'),
    rollouts: new RolloutRepository(manager),
  };
}

/**
 * The firmware app's unit of work: repositories bound to the DataSource, or to one
 * transaction. Use cases go through this and never touch the ORM themselves.
 */
@Injectable()
export class FirmwareStore {
  readonly repos: FirmwareRepositories;

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    this.repos = createRepositories(dataSource.manager);
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: (repos: FirmwareRepositories) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(createRepositories(manager)));
  }
}
