import { type Static, Type } from '@sinclair/typebox';

/** Most a rotation may delay the new key's first signature: 30 days. */
export const UPDATE_KEY_MAX_START_SECONDS = 2_592_000;

/** POST /admin/update-signing-keys/rotate. */
export const RotateUpdateSigningKeyRequest = Type.Object(
  {
    starts_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: UPDATE_KEY_MAX_START_SECONDS,
        description: 'Seconds until the new key signs (default 86400; 0: at once)',
        'x-error': `starts_in_seconds must be an integer from 0 to ${UPDATE_KEY_MAX_START_SECONDS}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type RotateUpdateSigningKeyRequest = Static<typeof RotateUpdateSigningKeyRequest>;

export const UpdateSigningKeySchema = Type.Object({
  kid: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  signs_from: Type.String({ format: 'date-time' }),
  published_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** The published update-answer keys, the one that signs latest first. */
export const UpdateSigningKeysSchema = Type.Object({ keys: Type.Array(UpdateSigningKeySchema) }, { $id: 'UpdateSigningKeys' });
export type UpdateSigningKeys = Static<typeof UpdateSigningKeysSchema>;
