import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IdentityMessages, type MemberEntry, type MessageRequest, type PeopleList } from '@app/contracts';
import { MembersUseCase } from '../use-cases/members/members.usecase.js';
import { NamePeopleCommand } from '../use-cases/name-people/name-people.command.js';
import { NamePeopleUseCase } from '../use-cases/name-people/name-people.usecase.js';

type List = MessageRequest<typeof IdentityMessages.listMembers>;
type Invite = MessageRequest<typeof IdentityMessages.inviteMember>;
type Update = MessageRequest<typeof IdentityMessages.updateMember>;
type Remove = MessageRequest<typeof IdentityMessages.removeMember>;
type NamePeople = MessageRequest<typeof IdentityMessages.namePeople>;

/** The member API of a customer (docs/api.md "Members and administrators' operations"); the gateway checks members:manage and the customer. */
@Controller()
export class MembersController {
  constructor(
    @Inject(MembersUseCase) private readonly members: MembersUseCase,
    @Inject(NamePeopleUseCase) private readonly namePeople: NamePeopleUseCase,
  ) {}

  @MessagePattern(IdentityMessages.namePeople.pattern)
  people(@Payload() call: NamePeople): Promise<PeopleList> {
    return this.namePeople.execute(NamePeopleCommand.create({ ctx: call.ctx, ids: call.query?.id }));
  }

  @MessagePattern(IdentityMessages.listMembers.pattern)
  list(@Payload() call: List): Promise<{ items: MemberEntry[] }> {
    return this.members.list(call.ctx);
  }

  @MessagePattern(IdentityMessages.inviteMember.pattern)
  invite(@Payload() call: Invite): Promise<MemberEntry> {
    return this.members.add(call.ctx, { email: call.body.email, role: call.body.role });
  }

  @MessagePattern(IdentityMessages.updateMember.pattern)
  update(@Payload() call: Update): Promise<MemberEntry> {
    return this.members.changeRole(call.ctx, call.params.email, call.body.role);
  }

  @MessagePattern(IdentityMessages.removeMember.pattern)
  remove(@Payload() call: Remove): Promise<void> {
    return this.members.remove(call.ctx, call.params.email);
  }
}
