import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { ProvisionOperatorUseCase } from '../use-cases/provision-operator/provision-operator.usecase.js';

/** Start-up work that must exist before the app answers: the operator and sandbox customers. */
@Injectable()
export class StartUpSchedule implements OnApplicationBootstrap {
  private readonly logger = new JsonLogger('identity');

  constructor(@Inject(ProvisionOperatorUseCase) private readonly provision: ProvisionOperatorUseCase) {}

  async onApplicationBootstrap(): Promise<void> {
    const result = await this.provision.execute();
    this.logger.info('provisioned', {
      operator: result.operator.domain,
      sandbox: result.sandbox?.domain ?? null,
      created: result.createdDomains,
      invited_owner: result.invitedOwner !== null,
    });
  }
}
