import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { TOKEN_LAST_USED_FLUSH_MS } from '../domain/limits.js';
import { IdentityStore } from '../repositories/identity.store.js';

/**
 * Coalesces api_tokens.last_used_at writes: credentialStatus only notes the time in memory;
 * a timer writes every noted token in one statement, so a token costs at most one write per
 * flush interval per replica however often the gateway asks.
 */
@Injectable()
export class TokenUsageRecorder implements OnModuleInit, OnModuleDestroy {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | null = null;
  private readonly logger = new JsonLogger('identity');

  constructor(@Inject(IdentityStore) private readonly store: IdentityStore) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), TOKEN_LAST_USED_FLUSH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  record(tokenId: string, at: Date): void {
    const previous = this.pending.get(tokenId);
    if (!previous || previous < at) this.pending.set(tokenId, at);
  }

  /** Writes what was noted since the last flush. Failures are logged and retried next time. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.repos.tokens.recordLastUsed([...batch].map(([id, at]) => ({ id, at })));
    } catch (err) {
      for (const [id, at] of batch) this.record(id, at);
      this.logger.warn('could not record token usage', { error: err instanceof Error ? err.message : String(err), tokens: batch.size });
    }
  }
}
