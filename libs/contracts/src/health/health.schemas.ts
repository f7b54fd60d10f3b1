import { Type, type Static } from '@sinclair/typebox';
import { BACKEND_APPS } from '../apps.js';

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

/**
 * The parts of the service whose state the gateways sample (docs/api.md "Health history"): the
 * gateway itself, the database, the object store and each backend app, in the order the
 * health page shows them.
 */
export const HEALTH_PARTS = ['gateway', 'database', 'object_store', ...BACKEND_APPS] as const;
export type HealthPart = (typeof HEALTH_PARTS)[number];
export type PartState = 'up' | 'down';

export const PartDay = Type.Object({
  day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  samples: Type.Integer(),
  up: Type.Integer(),
  down: Type.Integer(),
  uptime_ratio: Type.Union([Type.Number(), Type.Null()], { description: 'up samples / samples; null without samples (no data, not 100 %)' }),
});
export const PartHistory = Type.Object({
  part: Type.String({ description: `One of ${HEALTH_PARTS.join(', ')}` }),
  days: Type.Array(PartDay, { description: 'One entry per day, newest first' }),
});

export const HealthHistorySchema = Type.Object(
  {
    days: Type.Array(HealthDay, { description: 'The whole service (ok, degraded, down), one entry per day, newest first' }),
    parts: Type.Array(PartHistory, { description: 'Each part of the service, up or down, one entry per day, newest first' }),
  },
  {
    $id: 'HealthHistory',
    examples: [
      {
        days: [{ day: '2026-11-26', samples: 1440, ok: 1438, degraded: 2, down: 0, uptime_ratio: 0.9986 }],
        parts: [{ part: 'database', days: [{ day: '2026-11-26', samples: 1440, up: 1440, down: 0, uptime_ratio: 1 }] }],
      },
    ],
  },
);
export type HealthHistory = Static<typeof HealthHistorySchema>;
export type PartDayEntry = Static<typeof PartDay>;
