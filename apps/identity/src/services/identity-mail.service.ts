import { Inject, Injectable } from '@nestjs/common';
import type { Role } from '@app/contracts';
import { JobQueue, MAIL_JOB, MAIL_QUEUE, type MailMessage, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { LOGIN_CODE_TTL_MS } from '../domain/limits.js';

export interface LoginMail {
  readonly to: string;
  readonly challengeId: string;
  readonly code: string;
  readonly linkToken: string;
}

export interface InvitationMail {
  readonly to: string;
  readonly customerId: string;
  readonly customerDomain: string;
  readonly customerName: string;
  readonly role: Role;
  readonly userId: string;
}

/** Renders the identity app's mails (plain text, absolute links) and hands them to the worker. */
@Injectable()
export class IdentityMail {
  constructor(
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  renderLogin(mail: LoginMail): MailMessage {
    const link = magicLinkUrl(this.config.publicUrl, mail.challengeId, mail.linkToken);
    const minutes = LOGIN_CODE_TTL_MS / 60_000;
    return {
      kind: 'login',
      to: mail.to,
      subject: `Your login code: ${mail.code}`,
      text: [
        `Your login code is ${mail.code}`,
        '',
        `Enter it on the login page, or open this link to log in:`,
        link,
        '',
        `The code and the link are valid for ${minutes} minutes and can be used once.`,
        `If you did not ask to log in, you can ignore this message.`,
        '',
        this.config.publicUrl,
      ].join('\n'),
      idempotencyKey: `login:${mail.challengeId}`,
    };
  }

  renderInvitation(mail: InvitationMail): MailMessage {
    const article = mail.role === 'viewer' ? 'a' : 'an';
    return {
      kind: 'invitation',
      to: mail.to,
      subject: `You have been invited to ${mail.customerDomain}`,
      text: [
        `You have been invited to ${mail.customerName} (${mail.customerDomain}) as ${article} ${mail.role}.`,
        '',
        `Log in with this email address (${mail.to}); a login code will be sent to you:`,
        `${this.config.publicUrl}/login`,
        '',
        `If you did not expect this invitation, you can ignore this message.`,
      ].join('\n'),
      idempotencyKey: `invite:${mail.customerId}:${mail.userId}`,
    };
  }

  async sendLogin(mail: LoginMail): Promise<void> {
    await this.enqueue(this.renderLogin(mail));
  }

  async sendInvitation(mail: InvitationMail): Promise<void> {
    await this.enqueue(this.renderInvitation(mail));
  }

  private async enqueue(message: MailMessage): Promise<void> {
    await this.jobs.add<MailMessage>(MAIL_QUEUE, MAIL_JOB, message, { jobId: message.idempotencyKey });
  }
}

export function magicLinkUrl(publicUrl: string, challengeId: string, linkToken: string): string {
  const query = new URLSearchParams({ c: challengeId, t: linkToken });
  return `${publicUrl}/auth/magic?${query.toString()}`;
}
