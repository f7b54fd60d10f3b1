import { Injectable } from '@nestjs/common';

/** Time source of the identity app, replaceable in tests (expiry, idle limits, rate windows). */
export abstract class Clock {
  abstract now(): Date;
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
