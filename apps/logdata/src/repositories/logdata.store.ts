import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { LogFileRepository } from './log-file.repository.js';

export interface LogdataRepositories {
  readonly files: LogFileRepository;
}

export function createRepositories(manager: EntityManager): LogdataRepositories {
  return { files: new LogFileRepository(manager) };
}

/**
 * The logdata app's unit of work: repositories bound to the DataSource, or to one transaction.
 * Use cases go through this and never touch the ORM themselves.
 */
@Injectable()
export class LogdataStore {
  readonly repos: LogdataRepositories;

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {
    this.repos = createRepositories(dataSource.manager);
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: (repos: LogdataRepositories) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(createRepositories(manager)));
  }
}
