/**
 * Identity asks each app that keeps a customer's data to erase all of it (rows and stored
 * files) when the customer is deleted. Idempotent: asking again after a crash, or for a
 * customer with nothing left, answers the same.
 */
export interface CustomerErasure {
  readonly customerId: string;
}

export interface CustomerErased {
  /** Rows removed by this call (0 when nothing was left). */
  readonly rows: number;
  /** Stored files removed by this call. */
  readonly objects: number;
}

/** Longest identity waits for one app to erase a customer before answering 202 and retrying later. */
export const CUSTOMER_ERASURE_TIMEOUT_MS = 60_000;
