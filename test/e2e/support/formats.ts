/** What values in answers look like, for the files' checks. */

/** An RFC 3339 timestamp (docs/api.md: every time the API answers), fraction and offset optional. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
