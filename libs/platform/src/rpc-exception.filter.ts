import { type ArgumentsHost, Catch, type RpcExceptionFilter } from '@nestjs/common';
import { CommonErrors, ServiceError, type SerializedServiceError } from '@app/contracts';
import { JsonLogger, requestOfMessage } from '@app/infra';
import { type Observable, throwError } from 'rxjs';

const logger = new JsonLogger('rpc');

/** The RPC side of ServiceError's translation: what crosses the bus is its JSON form. */
@Catch()
export class ServiceErrorRpcFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, host: ArgumentsHost): Observable<SerializedServiceError> {
    if (ServiceError.is(exception)) return throwError(() => exception.toJSON());
    logger
      .forRequest(requestOfMessage(host.switchToRpc().getData()))
      .error(exception instanceof Error ? exception : new Error(String(exception)), 'unhandled error in message handler');
    return throwError(() => CommonErrors.internal().toJSON());
  }
}
