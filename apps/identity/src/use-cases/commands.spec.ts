import { describe, expect, it } from '@jest/globals';
import { asCustomerId, type CustomerRef, type RequestContext } from '@app/contracts';
import { ChangeMemberRoleCommand } from './change-member-role/change-member-role.command.js';
import { CreateCustomerCommand } from './create-customer/create-customer.command.js';
import { CreateTokenCommand } from './create-token/create-token.command.js';
import { IssueTokenCommand } from './issue-token/issue-token.command.js';
import { RemoveMemberCommand } from './remove-member/remove-member.command.js';
import { RequestLoginCommand } from './request-login/request-login.command.js';
import { RevokeTokenCommand } from './revoke-token/revoke-token.command.js';
import { UpdateCustomerCommand } from './update-customer/update-customer.command.js';
import { VerifyLoginCommand } from './verify-login/verify-login.command.js';

const customer: CustomerRef = { id: asCustomerId('0b7d1c3e-4f5a-4b6c-8d9e-0f1a2b3c4d5e'), domain: 'acme.example', isSandbox: false };
const creator = { userId: 'u-1', scopes: [], admin: '' as const };
const principal = { kind: 'session' as const, userId: 'u', credentialId: 's', homeCustomer: customer, scopes: [], admin: '' as const };
const ctx = { principal, customer, auditActor: 'user:u' } as unknown as RequestContext;
const badRequest = (message: string) => expect.objectContaining({ status: 400, reason: 'invalid_request', message });

describe('commands are valid once built', () => {
  it('login and verify take the contract body rules and normalise the address', () => {
    expect(RequestLoginCommand.create({ body: { email: 'Ada@Example.com' } }).email).toBe('ada@example.com');
    expect(() => RequestLoginCommand.create({ body: { email: 'nope' } })).toThrow(badRequest('email must be a valid email address'));
    expect(VerifyLoginCommand.create({ body: { email: 'ADA@example.com', code: '012345' } })).toMatchObject({
      email: 'ada@example.com',
      code: '012345',
      ip: null,
    });
    expect(() => VerifyLoginCommand.create({ body: { email: 'ada@example.com', code: '12345' } })).toThrow(badRequest('code must be exactly 6 digits'));
    expect(() => VerifyLoginCommand.create({ body: { email: 'ada@example.com', code: 123456 } })).toThrow(badRequest('code must be exactly 6 digits'));
  });

  it('token creation defaults to 90 days and refuses more than 365, bad names and unknown bundles', () => {
    const base = { customer, creator, name: 'ci', bundle: 'uploader', actor: 'user:u-1' };
    expect(CreateTokenCommand.create(base).expiresInDays).toBe(90);
    expect(CreateTokenCommand.create({ ...base, expiresInDays: 365 }).expiresInDays).toBe(365);
    expect(() => CreateTokenCommand.create({ ...base, expiresInDays: 366 })).toThrow(badRequest('expires_in_days must be an integer from 1 to 365'));
    expect(() => CreateTokenCommand.create({ ...base, expiresInDays: 1.5 })).toThrow(badRequest('expires_in_days must be an integer from 1 to 365'));
    expect(() => CreateTokenCommand.create({ ...base, name: '' })).toThrow(badRequest('name must be 1 to 100 characters'));
    expect(() => CreateTokenCommand.create({ ...base, name: 'x'.repeat(101) })).toThrow(badRequest('name must be 1 to 100 characters'));
    expect(() => CreateTokenCommand.create({ ...base, bundle: 'everything' })).toThrow(badRequest('bundle must be one of read-only, uploader, full, admin'));
  });

  it('the CLI command checks what the gateway would have', () => {
    expect(IssueTokenCommand.create({ customerDomain: 'ACME.example', email: ' Ada@Example.com', name: 'cli', bundle: 'full' })).toMatchObject({
      customerDomain: 'acme.example',
      email: 'ada@example.com',
      expiresInDays: 90,
    });
    expect(() => IssueTokenCommand.create({ customerDomain: 'not a domain', email: 'a@b.io', name: 'cli', bundle: 'full' })).toThrow(
      badRequest('domain must be a lower-case DNS name'),
    );
  });

  it('revocation needs a UUID', () => {
    expect(() => RevokeTokenCommand.create({ ctx, params: { id: 'x' } })).toThrow(badRequest('token id must be a UUID'));
    expect(() => RevokeTokenCommand.create({ ctx, params: { id: 'urn:uuid:0b7d1c3e-4f5a-4b6c-8d9e-0f1a2b3c4d5e' } })).toThrow(
      badRequest('token id must be a UUID'),
    );
    expect(RevokeTokenCommand.create({ ctx, params: { id: '0B7D1C3E-4F5A-4B6C-8D9E-0F1A2B3C4D5E' } }).tokenId).toBe('0b7d1c3e-4f5a-4b6c-8d9e-0f1a2b3c4d5e');
  });

  it('customer creation defaults the name to the domain, keeps each origin once and checks origins', () => {
    const command = CreateCustomerCommand.create({ ctx, body: { domain: 'acme.example' } });
    expect(command).toMatchObject({ domain: 'acme.example', name: 'acme.example', ownerEmail: null, corsOrigins: [], actor: 'admin:user:u' });
    expect(CreateCustomerCommand.create({ ctx, body: { domain: 'acme.example', owner_email: 'Boss@Acme.example' } }).ownerEmail).toBe('boss@acme.example');
    const origins = ['https://a.example', 'https://a.example'];
    expect(CreateCustomerCommand.create({ ctx, body: { domain: 'acme.example', cors_origins: origins } }).corsOrigins).toEqual(['https://a.example']);
    expect(() => CreateCustomerCommand.create({ ctx, body: { domain: 'acme.example', cors_origins: ['https://ok.example/path'] } })).toThrow(
      badRequest('cors_origins must be origins such as https://console.example.com'),
    );
  });

  it('a customer change takes the contract rules', () => {
    const change = UpdateCustomerCommand.create({ ctx, params: { domain: 'Acme.example' }, body: { status: 'suspended', cors_origins: [] } });
    expect(change).toMatchObject({ domain: 'acme.example', change: { status: 'suspended', corsOrigins: [] } });
    expect(() => UpdateCustomerCommand.create({ ctx, params: { domain: 'acme.example' }, body: { status: 'gone' } })).toThrow(
      badRequest('status must be active or suspended'),
    );
    expect(() => UpdateCustomerCommand.create({ ctx, params: { domain: 'acme.example' }, body: { name: '' } })).toThrow(
      badRequest('name must be 1 to 200 characters'),
    );
  });

  it('member changes take the address by the contract Email rule, normalised', () => {
    expect(RemoveMemberCommand.create({ ctx, email: ' Ada@Example.com ' }).email).toBe('ada@example.com');
    expect(() => RemoveMemberCommand.create({ ctx, email: 'abc' })).toThrow(badRequest('email must be a valid email address'));
    expect(() => ChangeMemberRoleCommand.create({ ctx, email: 'ada@example.com', body: { role: 'king' } })).toThrow(
      badRequest('role must be one of viewer, editor, owner'),
    );
  });
});
