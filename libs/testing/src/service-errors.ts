import { ServiceError } from '@app/contracts';

/** The ServiceError `promise` rejects with (to check its code and text); fails when it resolves or rejects with anything else. */
export async function serviceErrorOf(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
}
