import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Shared schema pieces. `x-error` is the message the gateway answers (400) when a value
 * fails its schema; without it the gateway names the parameter and the rule.
 */
export const Timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 timestamp' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const CustomerQuery = Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'Administrators only: the customer domain to act on.' }));

export const Limit = (max: number, dflt: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: dflt, 'x-error': `limit must be an integer from 1 to ${max}` });
/** Past the largest safe integer a number no longer counts exactly (nor fits every database integer). */
export const Offset = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  default: 0,
  'x-error': `offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`,
});

/** A day (`YYYY-MM-DD`, UTC) or an RFC 3339 timestamp: the bound of a range (statistics, audit log). */
const DAY_OR_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';
export const DayOrTimestamp = (name: string, description: string) =>
  Type.String({ pattern: DAY_OR_TIMESTAMP_PATTERN, description, 'x-error': `${name} must be a date (YYYY-MM-DD) or an RFC 3339 timestamp` });

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'The documentation of the error code: <service URL>/docs/errors#<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    request_id: Type.String(),
    code: Type.String({
      pattern: '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$',
      description: 'What went wrong, as a stable snake_case code to match on (the detail text is for people); every code is listed on /docs/errors',
    }),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

export const Page = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), next_offset: Type.Union([Type.Integer(), Type.Null()]) });

/** No parameters (an endpoint's path or query without any): the schema, and the type a call carries for it. */
export const NoParams = Type.Object({});
export type NoParams = Record<string, never>;

/** A UUID in any letter case (the database's uuid type answers in lower case), unanchored: to build patterns with. */
export const UUID_UNANCHORED = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** A whole value that is a UUID (any letter case). */
export const UUID_PATTERN = `^${UUID_UNANCHORED}$`;
const UUID_EXPRESSION = new RegExp(UUID_PATTERN);

/** Whether a value is a UUID (any letter case): an id the database's uuid type can hold. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_EXPRESSION.test(value);
}

/** One DNS label: letters and digits with inner hyphens, 1 to 63 characters. */
const DNS_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DNS_LABEL_ANY_CASE = DNS_LABEL.replaceAll('a-z0-9', 'A-Za-z0-9');

/** A customer's domain: lower-case DNS labels joined by dots, 253 characters at most. */
export const CUSTOMER_DOMAIN_PATTERN = `^(?=.{1,253}$)${DNS_LABEL}(?:\\.${DNS_LABEL})*$`;
const CUSTOMER_DOMAIN_EXPRESSION = new RegExp(CUSTOMER_DOMAIN_PATTERN);

/** Whether a value is a customer's domain as stored (CUSTOMER_DOMAIN_PATTERN). */
export function isCustomerDomain(value: unknown): value is string {
  return typeof value === 'string' && CUSTOMER_DOMAIN_EXPRESSION.test(value);
}

/**
 * The same names in any letter case, for URLs devices build (the update check lower-cases
 * them); the 253-character limit is the schema's maxLength.
 */
export const CUSTOMER_DOMAIN_ANY_CASE_PATTERN = `^${DNS_LABEL_ANY_CASE}(?:\\.${DNS_LABEL_ANY_CASE})*$`;

/** Domain names as accepted for customers. */
export const DomainName = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: CUSTOMER_DOMAIN_PATTERN,
  'x-error': 'domain must be a lower-case DNS name',
});

export const Email = Type.String({ format: 'email', maxLength: 254, 'x-error': 'email must be a valid email address' });
