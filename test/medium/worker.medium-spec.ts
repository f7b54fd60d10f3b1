import 'reflect-metadata';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import { healthMessage } from '@app/contracts';
import { closeDatabases, closeMessageBuses, configureLogging, createJobQueue, createMessageBus, MAIL_JOB, MAIL_QUEUE, resetInProcessBroker } from '@app/infra';
import { startBackendApp } from '@app/platform';
import { WorkerModule } from '../../apps/worker/src/worker.module.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

configureLogging({ sink: () => undefined });

let throwaway: Throwaway;
let app: INestMicroservice;

beforeAll(async () => {
  throwaway = await createThrowaway('worker');
  // the whole module with its real adapters: in-process jobs, the .eml outbox mailer
  app = await startBackendApp('worker', (config) => WorkerModule.register(config), throwaway.config);
});

afterAll(async () => {
  await app?.close();
  await createJobQueue(throwaway.config).close();
  await closeMessageBuses();
  resetInProcessBroker();
  await closeDatabases();
  await throwaway?.dispose();
});

async function outbox(): Promise<string[]> {
  const names = await readdir(join(throwaway.dataDir, 'outbox')).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.eml'));
}

describe('WorkerModule', () => {
  it('sends queued mail through the mailer once bootstrapped', async () => {
    await createJobQueue(throwaway.config).add(MAIL_QUEUE, MAIL_JOB, {
      to: 'person@example.com',
      subject: 'Your login code',
      text: 'Code: 123456',
      idempotencyKey: 'medium-test-1',
    });
    const deadline = Date.now() + 10_000;
    while ((await outbox()).length === 0) {
      if (Date.now() > deadline) throw new Error('no mail in the outbox');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const [file] = await outbox();
    const raw = await readFile(join(throwaway.dataDir, 'outbox', file), 'utf8');
    expect(raw).toContain('To: person@example.com');
    expect(raw).toContain('Subject: Your login code');
  });

  it('answers its health message with its database up', async () => {
    const bus = createMessageBus(throwaway.config, 'gateway');
    expect(await bus.send(healthMessage('worker'), {})).toMatchObject({ app: 'worker', database: true });
  });
});
