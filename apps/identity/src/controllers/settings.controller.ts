import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, SettingsMessages } from '@app/contracts';
import { ReadCustomerSettingsUseCase } from '../use-cases/customer-settings/read-customer-settings.usecase.js';
import { UpdateCustomerSettingsUseCase } from '../use-cases/customer-settings/update-customer-settings.usecase.js';

/** GET and PATCH /settings: a customer's own settings (its devices' polling interval). */
@Controller()
export class SettingsController {
  constructor(
    @Inject(ReadCustomerSettingsUseCase) private readonly readSettings: ReadCustomerSettingsUseCase,
    @Inject(UpdateCustomerSettingsUseCase) private readonly updateSettings: UpdateCustomerSettingsUseCase,
  ) {}

  @MessagePattern(SettingsMessages.get.pattern)
  get(@Payload() call: MessageRequest<typeof SettingsMessages.get>) {
    return this.readSettings.execute(call);
  }

  @MessagePattern(SettingsMessages.update.pattern)
  update(@Payload() call: MessageRequest<typeof SettingsMessages.update>) {
    return this.updateSettings.execute(call);
  }
}
