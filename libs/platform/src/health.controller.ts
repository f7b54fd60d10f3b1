import { Controller, Inject, Optional, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type AppHealth, type BackendApp, healthMessage } from '@app/contracts';
import { DataSource } from 'typeorm';
import { databaseAnswers } from './probes/app-probes.js';

const startedAt = Date.now();

/** An app's health: whether its database answers (true for apps without tables) and how long it has run. */
async function appHealth(app: BackendApp, dataSource: DataSource | undefined): Promise<AppHealth> {
  const database = dataSource ? await databaseAnswers(dataSource) : true;
  return { app, database, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
}

/** Every backend app answers `<app>.health`; the database flag is true for apps without tables. */
export function healthController(app: BackendApp): Type<unknown> {
  @Controller()
  class AppHealthController {
    constructor(@Optional() @Inject(DataSource) private readonly dataSource?: DataSource) {}

    @MessagePattern(healthMessage(app).pattern)
    health(): Promise<AppHealth> {
      return appHealth(app, this.dataSource);
    }
  }
  Object.defineProperty(AppHealthController, 'name', { value: `${app[0].toUpperCase()}${app.slice(1)}HealthController` });
  return AppHealthController;
}
