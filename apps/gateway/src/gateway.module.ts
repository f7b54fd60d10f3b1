import { type DynamicModule, Module } from '@nestjs/common';
import { DownloadLinkSigner, downloadLinkSecret, type ServiceConfig } from '@app/infra';
import { InfraModule } from '@app/platform';
import { AccessPolicy } from './auth/access-policy.js';
import { Authenticator } from './auth/authenticator.js';
import { CredentialStatusCache } from './auth/credential-status.js';
import { CustomerDirectory } from './auth/customer-directory.js';
import { VerificationKeys } from './auth/verification-keys.js';
import { DOWNLOAD_SIGNER, DownloadServer } from './downloads/download-server.js';
import { ServiceHealth } from './health/service-health.js';
import { GatewayHttpServer } from './http/gateway-http-server.js';
import { RequestPipeline } from './http/request-pipeline.js';
import { GatewayMetrics } from './observability/metrics.js';
import { RequestLog } from './observability/request-log.js';
import { BodyStager } from './uploads/body-stager.js';

/** The gateway owns no tables: it authenticates, validates and forwards over the bus. */
@Module({})
export class GatewayModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [InfraModule.forApp({ app: 'gateway', config })],
      providers: [
        { provide: DOWNLOAD_SIGNER, useFactory: () => new DownloadLinkSigner(downloadLinkSecret(config)) },
        VerificationKeys,
        CredentialStatusCache,
        CustomerDirectory,
        Authenticator,
        AccessPolicy,
        BodyStager,
        DownloadServer,
        GatewayMetrics,
        RequestLog,
        ServiceHealth,
        RequestPipeline,
        GatewayHttpServer,
      ],
    };
  }
}
