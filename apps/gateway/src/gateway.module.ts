import { type DynamicModule, Module } from '@nestjs/common';
import { DownloadLinkSigner, downloadLinkSecret, type ServiceConfig } from '@app/infra';
import { CustomerDirectory, InfraModule } from '@app/platform';
import { AccessPolicy } from './auth/access-policy.js';
import { RequestAccess } from './auth/request-access.js';
import { Authenticator } from './auth/authenticator.js';
import { CredentialStatusCache } from './auth/credential-status.js';
import { SessionRenewal } from './auth/session-renewal.js';
import { VerificationKeys } from './auth/verification-keys.js';
import { DOWNLOAD_SIGNER, DownloadServer } from './downloads/download-server.js';
import { ServiceHealth } from './health/service-health.js';
import { GatewayEndpoints } from './http/gateway-endpoints.js';
import { GatewayHttpServer } from './http/gateway-http-server.js';
import { ReplyWriter } from './http/reply-writer.js';
import { RequestFailure } from './http/request-failure.js';
import { CorsPolicy } from './http/cors.js';
import { RequestPipeline } from './http/request-pipeline.js';
import { GatewayMetrics } from './observability/metrics.js';
import { RequestLog } from './observability/request-log.js';
import { RequestRecorder } from './observability/request-recorder.js';
import { HealthPage } from './pages/health-page.js';
import { PageServer } from './pages/page-server.js';
import { GatewayProtection } from './protection/gateway-protection.js';
import { BodyStager } from './uploads/body-stager.js';
import { MultipartStager } from './uploads/multipart-stager.js';
import { EndpointRateLimiter } from './rate-limit/rate-limiter.js';
import { LoadGauge } from './rate-limit/load-gauge.js';

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
        SessionRenewal,
        CustomerDirectory,
        Authenticator,
        AccessPolicy,
        RequestAccess,
        BodyStager,
        MultipartStager,
        EndpointRateLimiter,
        LoadGauge,
        DownloadServer,
        GatewayMetrics,
        RequestLog,
        RequestRecorder,
        ServiceHealth,
        PageServer,
        HealthPage,
        GatewayEndpoints,
        ReplyWriter,
        RequestFailure,
        GatewayProtection,
        RequestPipeline,
        CorsPolicy,
        GatewayHttpServer,
      ],
    };
  }
}
