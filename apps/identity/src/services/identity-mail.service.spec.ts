import { describe, expect, it } from '@jest/globals';
import { MAIL_JOB, MAIL_QUEUE } from '@app/infra';
import { FakeJobQueue } from '../../test/fakes.js';
import { makeIdentityConfig } from '../../test/factories.js';
import { IdentityMail, magicLinkUrl } from './identity-mail.service.js';

describe('identity mails', () => {
  const jobs = new FakeJobQueue();
  const mail = new IdentityMail(jobs, makeIdentityConfig());

  it('login mail: code in the subject and body, absolute magic link, idempotency key per challenge', () => {
    const message = mail.renderLogin({ to: 'ada@example.com', challengeId: 'c-1', code: '012345', linkToken: 'tok_en-1' });
    expect(message.subject).toBe('Your login code: 012345');
    expect(message.text).toContain('012345');
    expect(message.text).toContain('https://fw.example.test/auth/magic?c=c-1&t=tok_en-1');
    expect(message.text).toContain('15 minutes');
    expect(message.idempotencyKey).toBe('login:c-1');
  });

  it('invitation mail names the customer and role and links to the login page', () => {
    const message = mail.renderInvitation({
      to: 'bo@example.com',
      customerId: 'k',
      customerDomain: 'acme.example',
      customerName: 'Acme',
      role: 'owner',
      userId: 'u',
    });
    expect(message.subject).toBe('You have been invited to acme.example');
    expect(message.text).toContain('Acme (acme.example) as an owner');
    expect(message.text).toContain('https://fw.example.test/login');
  });

  it('is enqueued for the worker on the mail queue, de-duplicated by its key', async () => {
    await mail.sendLogin({ to: 'ada@example.com', challengeId: 'c-2', code: '111111', linkToken: 't' });
    await mail.sendLogin({ to: 'ada@example.com', challengeId: 'c-2', code: '111111', linkToken: 't' });
    expect(jobs.jobs).toHaveLength(1);
    expect(jobs.jobs[0]).toMatchObject({ queue: MAIL_QUEUE, name: MAIL_JOB, data: { to: 'ada@example.com' }, options: { jobId: 'login:c-2' } });
  });

  it('escapes link parameters', () => {
    expect(magicLinkUrl('https://x.test', 'a b', 'c&d')).toBe('https://x.test/auth/magic?c=a+b&t=c%26d');
  });
});
