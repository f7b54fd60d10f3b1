import { describe, expect, it } from '@jest/globals';
import { asCustomerId, type CustomerRef } from '@app/contracts';
import { CreateCustomerCommand } from './create-customer/create-customer.command.js';
import { CreateTokenCommand } from './create-token/create-token.command.js';
import { IssueTokenCommand } from './issue-token/issue-token.command.js';
import { RequestLoginCommand } from './request-login/request-login.command.js';
import { RevokeTokenCommand } from './revoke-token/revoke-token.command.js';
import { VerifyLoginCommand } from './verify-login/verify-login.command.js';

const customer: CustomerRef = { id: asCustomerId('0b7d1c3e-4f5a-4b6c-8d9e-0f1a2b3c4d5e'), domain: 'acme.example', isSandbox: false };
const creator = { userId: 'u-1', scopes: [], admin: '' as const };
const badRequest = (message: string) => expect.objectContaining({ status: 400, reason: 'invalid_request', message });

describe('commands are valid once built', () => {
  it('login and verify normalise the address and check the code', () => {
    expect(RequestLoginCommand.create({ email: ' Ada@Example.com ' }).email).toBe('ada@example.com');
    expect(() => RequestLoginCommand.create({ email: 'nope' })).toThrow(badRequest('email must be a valid email address'));
    expect(VerifyLoginCommand.create({ email: 'ADA@example.com', code: '012345' })).toMatchObject({ email: 'ada@example.com', code: '012345', ip: null });
    expect(() => VerifyLoginCommand.create({ email: 'ada@example.com', code: '12345' })).toThrow(badRequest('code must be exactly 6 digits'));
    expect(() => VerifyLoginCommand.create({ email: 'ada@example.com', code: 123456 })).toThrow(badRequest('code must be exactly 6 digits'));
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
    expect(IssueTokenCommand.create({ customerDomain: 'ACME.example', email: 'Ada@Example.com', name: 'cli', bundle: 'full' })).toMatchObject({
      customerDomain: 'acme.example',
      email: 'ada@example.com',
      expiresInDays: 90,
    });
    expect(() => IssueTokenCommand.create({ customerDomain: 'not a domain', email: 'a@b.io', name: 'cli', bundle: 'full' })).toThrow(
      badRequest('customer domain must be a lower-case DNS name'),
    );
  });

  it('revocation needs a UUID', () => {
    const principal = { kind: 'session' as const, userId: 'u', credentialId: 's', homeCustomer: customer, scopes: [], admin: '' as const };
    expect(() => RevokeTokenCommand.create({ customer, principal, tokenId: 'x', actor: 'user:u' })).toThrow(badRequest('token id must be a UUID'));
  });

  it('customer creation defaults the name to the domain and checks origins', () => {
    const command = CreateCustomerCommand.create({ domain: 'acme.example', actor: 'admin:user:1' });
    expect(command).toMatchObject({ domain: 'acme.example', name: 'acme.example', ownerEmail: null, corsOrigins: [] });
    expect(CreateCustomerCommand.create({ domain: 'acme.example', ownerEmail: 'Boss@Acme.example', actor: 'a' }).ownerEmail).toBe('boss@acme.example');
    expect(() => CreateCustomerCommand.create({ domain: 'acme.example', corsOrigins: ['https://ok.example/path'], actor: 'a' })).toThrow(
      badRequest('cors_origins must be origins such as https://console.example.com'),
    );
  });
});
