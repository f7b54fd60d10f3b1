import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { LOGIN_RECORDS_CLEANUP_EVERY_MS } from '../domain/limits.js';
import { ForgetLoginRecordsUseCase } from '../use-cases/forget-login-records/forget-login-records.usecase.js';

/** Old login attempts and challenges go once every LOGIN_RECORDS_CLEANUP_EVERY_MS, in every replica. */
@Injectable()
export class LoginRecordsSchedule implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(ForgetLoginRecordsUseCase) private readonly forget: ForgetLoginRecordsUseCase) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.forget.execute(), LOGIN_RECORDS_CLEANUP_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
