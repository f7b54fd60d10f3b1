import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  AdminEvents,
  type AppHealth,
  BACKEND_APPS,
  type BackendApp,
  type HealthPart,
  healthMessage,
  type PartState,
  type Readiness,
  type StatusDocument,
} from '@app/contracts';
import { MessageBus, ObjectStore, processMetrics, registerAppMetrics, type ServiceConfig, ServiceMetrics } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { GatewayMetrics } from '../observability/metrics.js';
import { GatewayProtection } from '../protection/gateway-protection.js';

const VERSION = '1.0.0';

/**
 * Readiness (the bus) and status from the apps' health answers and the object store. `/status` is
 * ok when everything answers, degraded when an app or the object store does not, and down
 * (503) when no app can reach the database. Every HEALTH_SAMPLE_INTERVAL_SECONDS a sample (the
 * status and each part's state) goes to the admin app for /health/history.
 */
@Injectable()
export class ServiceHealth implements OnModuleInit, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private lastUp = new Map<BackendApp, boolean>();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly bus: MessageBus,
    private readonly store: ObjectStore,
    private readonly protection: GatewayProtection,
    metrics: GatewayMetrics,
  ) {
    for (const app of BACKEND_APPS) {
      metrics.gauge(`fds_app_up{app="${app}"}`, () => (this.lastUp.get(app) ? 1 : 0));
      processMetrics.collected(ServiceMetrics.up).collect([app], () => (this.lastUp.get(app) ? 1 : 0));
    }
    registerAppMetrics('gateway', config.buildCommit, () => this.bus.connected());
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sample(), this.config.healthSampleSeconds * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * Ready while the gateway reaches the bus: every answer goes through it. The database and the
   * object store are reported but do not decide: a failover of either must not take every gateway
   * out of service, update checks included, which the update-check role answers from memory
   * (docs/operations.md "Probes and metrics").
   */
  async readiness(): Promise<Readiness> {
    const status = await this.status();
    return { ready: this.bus.connected(), database: status.database, object_store: status.object_store };
  }

  async status(): Promise<StatusDocument> {
    const [answers, objectStore] = await Promise.all([
      Promise.all(BACKEND_APPS.map((app) => this.bus.send(healthMessage(app), {}).catch((): AppHealth | null => null))),
      this.store.check().catch(() => false),
    ]);
    const apps: Record<string, 'up' | 'down'> = {};
    BACKEND_APPS.forEach((app, i) => {
      apps[app] = answers[i] ? 'up' : 'down';
      this.lastUp.set(app, !!answers[i]);
    });
    const answered = answers.filter((a): a is AppHealth => a !== null);
    const database = answered.length > 0 && answered.every((a) => a.database);
    const allUp = answered.length === BACKEND_APPS.length;
    const status: StatusDocument['status'] = !database ? 'down' : allUp && objectStore ? 'ok' : 'degraded';
    const maintenance = this.protection.maintenance;
    return { status, version: VERSION, time: new Date().toISOString(), database, object_store: objectStore, apps, maintenance };
  }

  private async sample(): Promise<void> {
    const { status, time, database, object_store, apps } = await this.status();
    // The gateway is up whenever it samples: a day it was not running shows fewer samples.
    const parts: Partial<Record<HealthPart, PartState>> = { gateway: 'up', database: database ? 'up' : 'down', object_store: object_store ? 'up' : 'down' };
    for (const app of BACKEND_APPS) parts[app] = apps[app] === 'up' ? 'up' : 'down';
    this.bus.emit(AdminEvents.healthSample, { ts: time, status, parts });
  }
}
