import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  CommonErrors,
  DEFAULT_MAINTENANCE_MESSAGE,
  type EndpointDef,
  type EnforcedProtection,
  MAINTENANCE_REFUSED_METHODS,
  MAINTENANCE_RETRY_AFTER_SECONDS,
  type MaintenanceSetting,
  ProtectionEvents,
  ProtectionMessages,
  ServiceError,
} from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';
import { IpBlockMatcher } from './ip-block-matcher.js';

/** The state is re-read this often (a lost ProtectionEvents.changed heals within it). */
export const PROTECTION_REREAD_MS = 1_000;
const READ_TIMEOUT_MS = 2_000;
/** At start the admin app may not answer yet (standalone: it starts in the same process): no warning this long. */
const STARTUP_QUIET_MS = 10_000;

const ADDRESS_BLOCKED = CommonErrors.address_blocked();

/** Whether `error` is this gateway's refusal of a blocked address. */
export function isAddressBlocked(error: unknown): boolean {
  return error === ADDRESS_BLOCKED;
}

/**
 * Maintenance mode and IP blocks as this gateway enforces them (docs/api.md "Maintenance mode
 * and IP blocks"). Kept by the admin app; read at start, at once when it announces a change
 * (broadcast to every replica) and every second, asking only whether the revision changed.
 * A change forwarded by this gateway is enforced from the state its reply carries, before the
 * answer is written (apply). While the admin app does not answer, the last known state stays
 * in force.
 */
@Injectable()
export class GatewayProtection implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('gateway');
  private matcher = IpBlockMatcher.EMPTY;
  private maintenanceRefusal: ServiceError | null = null;
  private setting: MaintenanceSetting = { enabled: false, message: DEFAULT_MAINTENANCE_MESSAGE };
  private revision: string | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  /** How many replies' states were applied: a read that overlapped one may bring an older state. */
  private applied = 0;
  private unreachableSince: number | null = null;
  private readonly startedAt = Date.now();
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  constructor(private readonly bus: MessageBus) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe(ProtectionEvents.changed, ({ revision }) => {
      if (revision !== this.revision) void this.refresh();
    });
    this.timer = setInterval(() => void this.refresh(), PROTECTION_REREAD_MS);
    this.timer.unref();
    void this.refresh();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /**
   * Throws the answer of a request this gateway refuses: 403 from a blocked address (any
   * endpoint), 503 with Retry-After for a write in maintenance. One lookup when nothing applies.
   */
  check(endpoint: EndpointDef, method: string, ip: string): void {
    this.checkAddress(ip);
    if (this.maintenanceRefusal !== null && MAINTENANCE_REFUSED_METHODS.has(method) && !endpoint.allowedInMaintenance) throw this.maintenanceRefusal;
  }

  /** 403 for a blocked address (also before any route: CORS preflights). */
  checkAddress(ip: string): void {
    if (this.matcher.size !== 0 && this.matcher.matches(ip)) throw ADDRESS_BLOCKED;
  }

  /** The answer to a request from `ip` no endpoint takes: 403 when the address is blocked, else the refusal itself. */
  refusalFor(refusal: unknown, ip: string): unknown {
    return this.matcher.size !== 0 && this.matcher.matches(ip) ? ADDRESS_BLOCKED : refusal;
  }

  get maintenance(): MaintenanceSetting {
    return this.setting;
  }

  /**
   * Enforces the state a change's reply carries, unless this gateway already has that revision
   * or a later one (another change's announcement or reply may have come first).
   */
  apply(state: EnforcedProtection): void {
    if (this.revision !== null && !isLater(state.revision, this.revision)) return;
    this.applied++;
    this.enforce(state);
  }

  /** Re-reads the state (one read at a time; a change announced meanwhile reads again after). */
  refresh(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = null;
      if (this.readAgain) {
        this.readAgain = false;
        void this.refresh();
      }
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const appliedBefore = this.applied;
    try {
      const state = await this.bus.send(ProtectionMessages.protectionState, { knownRevision: this.revision }, { timeoutMs: READ_TIMEOUT_MS });
      if (this.unreachableSince !== null) {
        this.logger.info('protection state read again from the admin app', { unreachable_ms: Date.now() - this.unreachableSince });
        this.unreachableSince = null;
      }
      if (!state.changed) return;
      // Read before a reply's state was applied meanwhile: not newer than that one unless its revision is.
      if (this.applied !== appliedBefore && this.revision !== null && !isLater(state.revision, this.revision)) return;
      this.enforce(state);
    } catch (err) {
      if (this.unreachableSince !== null || (this.revision === null && Date.now() - this.startedAt < STARTUP_QUIET_MS)) return;
      this.unreachableSince = Date.now();
      this.logger.warn('protection state not read from the admin app; the last known maintenance setting and IP blocks stay in force', {
        error: err instanceof Error ? err.message : String(err),
        maintenance: this.setting.enabled,
        ip_blocks: this.matcher.size,
      });
    }
  }

  private enforce(state: EnforcedProtection): void {
    this.matcher = new IpBlockMatcher(state.blocks);
    this.setting = state.maintenance;
    this.maintenanceRefusal = state.maintenance.enabled
      ? CommonErrors.maintenance({ notice: state.maintenance.message }, { 'Retry-After': String(MAINTENANCE_RETRY_AFTER_SECONDS) })
      : null;
    this.revision = state.revision;
  }
}

/** Whether revision `a` comes after `b` (both increasing integers as decimal text). */
function isLater(a: string, b: string): boolean {
  return a.length !== b.length ? a.length > b.length : a > b;
}
