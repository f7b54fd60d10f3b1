import { Inject, Injectable } from '@nestjs/common';
import type { DeviceAudience } from '@app/contracts';
import { RegistryStore } from '../../repositories/registry.store.js';
import type { FindAudienceCommand } from './find-audience.command.js';

/** The known, active devices a build's rule selects (the firmware app decides the rule): counts and one page. */
@Injectable()
export class FindAudience {
  constructor(@Inject(RegistryStore) private readonly store: RegistryStore) {}

  async execute(command: FindAudienceCommand): Promise<DeviceAudience> {
    const found = await this.store.transaction((repos) => repos.rollouts.audience({ customerId: command.customerId, ...command.query }));
    return {
      devices: found.devices,
      neverCheckedIn: found.neverCheckedIn,
      items: found.items.map((d) => ({ hwid: d.hwid, lastFwVersion: d.lastFwVersion, lastSeenAt: d.lastSeenAt.toISOString() })),
    };
  }
}
