import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type AppDataExportReply, type AppDataExportRequest, type AppDataImportReply, type AppDataImportRequest, AppDataMessages } from '@app/contracts';
import { MessageBus, ObjectStore } from '@app/infra';
import { DataSource } from 'typeorm';
import type { AppDataDeclaration } from './app-data.declaration.js';
import { ExportAppDataCommand, ImportAppDataCommand } from './app-data.commands.js';
import { ExportAppData } from './export-app-data.js';
import { ImportAppData } from './import-app-data.js';

/**
 * Every app with tables answers `<app>.data.export` and `<app>.data.import` (backups) with
 * the one implementation here, told by its declaration which tables are its data.
 */
export function appDataController(declaration: AppDataDeclaration): Type<unknown> {
  @Controller()
  class AppDataController {
    private readonly exporter: ExportAppData;
    private readonly importer: ImportAppData;

    constructor(@Inject(DataSource) dataSource: DataSource, @Inject(ObjectStore) store: ObjectStore, @Inject(MessageBus) bus: MessageBus) {
      this.exporter = new ExportAppData(declaration, dataSource, store);
      this.importer = new ImportAppData(declaration, dataSource, store, bus);
    }

    @MessagePattern(AppDataMessages.export(declaration.app).pattern)
    export(@Payload() request: AppDataExportRequest): Promise<AppDataExportReply> {
      return this.exporter.run(ExportAppDataCommand.create(request));
    }

    @MessagePattern(AppDataMessages.import(declaration.app).pattern)
    import(@Payload() request: AppDataImportRequest): Promise<AppDataImportReply> {
      return this.importer.run(ImportAppDataCommand.create(request));
    }
  }
  const app = declaration.app;
  Object.defineProperty(AppDataController, 'name', { value: `${app[0].toUpperCase()}${app.slice(1)}DataController` });
  return AppDataController;
}
