import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IdentityMessages, type MemberEntry, type MessageRequest, type PeopleList } from '@app/contracts';
import { AddMemberCommand } from '../use-cases/add-member/add-member.command.js';
import { AddMemberUseCase } from '../use-cases/add-member/add-member.usecase.js';
import { ChangeMemberRoleCommand } from '../use-cases/change-member-role/change-member-role.command.js';
import { ChangeMemberRoleUseCase } from '../use-cases/change-member-role/change-member-role.usecase.js';
import { ListMembersCommand } from '../use-cases/list-members/list-members.command.js';
import { ListMembersUseCase } from '../use-cases/list-members/list-members.usecase.js';
import { NamePeopleCommand } from '../use-cases/name-people/name-people.command.js';
import { NamePeopleUseCase } from '../use-cases/name-people/name-people.usecase.js';
import { RemoveMemberCommand } from '../use-cases/remove-member/remove-member.command.js';
import { RemoveMemberUseCase } from '../use-cases/remove-member/remove-member.usecase.js';

type Req<K extends keyof typeof IdentityMessages> = MessageRequest<(typeof IdentityMessages)[K]>;

/**
 * The member API of a customer (docs/api.md "Members and administrators' operations"); the
 * gateway checks members:manage and the customer. Handlers are async so a refused command
 * answers a rejected promise.
 */
@Controller()
export class MembersController {
  constructor(
    @Inject(ListMembersUseCase) private readonly listMembers: ListMembersUseCase,
    @Inject(AddMemberUseCase) private readonly addMember: AddMemberUseCase,
    @Inject(ChangeMemberRoleUseCase) private readonly changeMemberRole: ChangeMemberRoleUseCase,
    @Inject(RemoveMemberUseCase) private readonly removeMember: RemoveMemberUseCase,
    @Inject(NamePeopleUseCase) private readonly namePeople: NamePeopleUseCase,
  ) {}

  @MessagePattern(IdentityMessages.namePeople.pattern)
  async people(@Payload() call: Req<'namePeople'>): Promise<PeopleList> {
    return this.namePeople.execute(NamePeopleCommand.create({ ctx: call.ctx, ids: call.query?.id }));
  }

  @MessagePattern(IdentityMessages.listMembers.pattern)
  async list(@Payload() call: Req<'listMembers'>): Promise<{ items: MemberEntry[] }> {
    return this.listMembers.execute(ListMembersCommand.create({ ctx: call.ctx }));
  }

  @MessagePattern(IdentityMessages.inviteMember.pattern)
  async invite(@Payload() call: Req<'inviteMember'>): Promise<MemberEntry> {
    return this.addMember.execute(AddMemberCommand.create({ ctx: call.ctx, body: call.body }));
  }

  @MessagePattern(IdentityMessages.updateMember.pattern)
  async update(@Payload() call: Req<'updateMember'>): Promise<MemberEntry> {
    return this.changeMemberRole.execute(ChangeMemberRoleCommand.create({ ctx: call.ctx, email: call.params.email, body: call.body }));
  }

  @MessagePattern(IdentityMessages.removeMember.pattern)
  async remove(@Payload() call: Req<'removeMember'>): Promise<void> {
    return this.removeMember.execute(RemoveMemberCommand.create({ ctx: call.ctx, email: call.params.email }));
  }
}
