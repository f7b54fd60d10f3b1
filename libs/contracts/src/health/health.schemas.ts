import { Type, type Static } from '@sinclair/typebox';

export const ReadinessSchema = Type.Object(
  {
    ready: Type.Boolean(),
    database: Type.Boolean(),
    object_store: Type.Boolean(),
  },
  { $id: 'Readiness' },
);
export type Readiness = Static<typeof ReadinessSchema>;

export const StatusSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
    version: Type.String(),
    time: Type.String(),
    database: Type.Boolean(),
    object_store: Type.Boolean(),
    apps: Type.Record(Type.String(), Type.Union([Type.Literal('up'), Type.Literal('down')])),
    maintenance: Type.Object(
      { enabled: Type.Boolean(), message: Type.String() },
      { description: 'Maintenance mode as this gateway enforces it (writes answer 503 while enabled)' },
    ),
  },
  { $id: 'Status' },
);
export type StatusDocument = Static<typeof StatusSchema>;

export const HealthHistoryQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 400, default: 90, 'x-error': 'days must be an integer from 1 to 400' })),
});
export type HealthHistoryQuery = Static<typeof HealthHistoryQuery>;

export const HealthDay = Type.Object({
  day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  samples: Type.Integer(),
  ok: Type.Integer(),
  degraded: Type.Integer(),
  down: Type.Integer(),
  uptime_ratio: Type.Union([Type.Number(), Type.Null()], { description: 'ok samples / samples; null without samples' }),
});
export const HealthHistorySchema = Type.Object({ days: Type.Array(HealthDay) }, { $id: 'HealthHistory' });
export type HealthHistory = Static<typeof HealthHistorySchema>;
