import { AdminErrors, HealthHistoryQuery } from '@app/contracts';
import { contractCheck } from '@app/platform';

export const HISTORY_DEFAULT_DAYS = 90;
export const HISTORY_MAX_DAYS = 400;

const validQuery = contractCheck(HealthHistoryQuery, { coerce: true, where: 'query parameter' });

/** GET /health/history, validated when built: the last `days` UTC days (today included). */
export class GetHealthHistoryCommand {
  private constructor(readonly days: number) {}

  /** `days` outside 1..HISTORY_MAX_DAYS answers the catalog's health_days_invalid (checked before the schema, which says the same). */
  static create(input: { query: unknown }): GetHealthHistoryCommand {
    const days = (input.query as HealthHistoryQuery | undefined)?.days ?? HISTORY_DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > HISTORY_MAX_DAYS) throw AdminErrors.health_days_invalid({ maxDays: HISTORY_MAX_DAYS });
    validQuery(input.query ?? {});
    return new GetHealthHistoryCommand(days);
  }
}
