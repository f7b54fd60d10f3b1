import { Inject, Injectable } from '@nestjs/common';
import { sqlState } from '@app/infra';
import { OutboxRepository } from '@app/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { DeviceImportRepository } from './device-import.repository.js';
import { DeviceListRepository } from './device-list.repository.js';
import { DeviceReportRepository } from './device-report.repository.js';
import { DeviceRolloutRepository } from './device-rollout.repository.js';
import { RolloutOfferRepository } from './rollout-offer.repository.js';
import { DeviceSightingRepository } from './device-sighting.repository.js';
import { DeviceTagRepository } from './device-tag.repository.js';
import { DeviceRepository } from './device.repository.js';

export interface RegistryRepositories {
  readonly devices: DeviceRepository;
  readonly deviceLists: DeviceListRepository;
  readonly imports: DeviceImportRepository;
  readonly tags: DeviceTagRepository;
  readonly sightings: DeviceSightingRepository;
  /** Audiences, the fleet summary, a device's last check (device_line_idx). */
  readonly rollouts: DeviceRolloutRepository;
  /** Staged rollouts: offers, outcomes, device reports, version history (rollout_offer, device_history). */
  readonly rolloutOffers: RolloutOfferRepository;
  /** Devices' signed install reports (device_report). */
  readonly reports: DeviceReportRepository;
  /** Audit entries on their way to the admin app (OutboxRelay). */
  readonly outbox: OutboxRepository;
}

export function createRepositories(manager: EntityManager): RegistryRepositories {
  return {
    devices: new DeviceRepository(manager),
    deviceLists: new DeviceListRepository(manager),
    imports: new DeviceImportRepository(manager),
    tags: new DeviceTagRepository(manager),
    sightings: new DeviceSightingRepository(manager),
    rollouts: new DeviceRolloutRepository(manager),
    rolloutOffers: new RolloutOfferRepository(manager),
    reports: new DeviceReportRepository(manager),
    outbox: new OutboxRepository(manager, 'registry'),
  };
}

/** Attempts of a transaction that lost a deadlock or a serialization conflict. */
const TRANSACTION_ATTEMPTS = 3;
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * The registry app's unit of work: repositories bound to the DataSource, or to one
 * transaction. Use cases go through this and never touch the ORM themselves. Inside a
 * transaction every statement must go through its repositories: on the embedded database one
 * session serves the whole process, so a query outside would wait for the transaction.
 */
@Injectable()
export class RegistryStore {
  readonly repos: RegistryRepositories;

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    this.repos = createRepositories(dataSource.manager);
  }

  /** Runs `work` in one transaction, again (up to 3 times in all) when it lost a deadlock or a serialization conflict. */
  async transaction<T>(work: (repos: RegistryRepositories) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction((manager) => work(createRepositories(manager)));
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !RETRYABLE.has(sqlState(err) ?? '')) throw err;
      }
    }
  }
}
