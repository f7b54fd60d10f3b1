import { Injectable } from '@nestjs/common';

/** The current time, replaceable in tests. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
