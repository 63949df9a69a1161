import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashSessionToken, newSessionToken } from '#core/session-token.ts';
import { SESSION_LIFETIME_SECONDS } from '#core/sessions.ts';
import { SESSION_COOKIE } from '#http/session-token.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { revokeSession } from '#store/sessions.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin } from '../support/gateway.ts';

const { api } = gatewayForFile();

describe('the session authorizer, against DynamoDB Local', () => {
  it('signs in locally: a session token of 256 bits and a provisioning tenant whose administrator the user is', async () => {
    const login = uniqueLogin('alice');
    const session = await api.signIn(login);
    expect(Buffer.from(session.sessionToken, 'base64url')).toHaveLength(32);
    expect(session.role).toBe('administrator');
    const { Item: tenant } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(session.tenantId) }),
    );
    expect(tenant).toMatchObject({ billingState: 'provisioning', homeRegion: 'eu', slug: null });
  });

  it('stores only the SHA-256 of the token', async () => {
    const session = await api.signIn(uniqueLogin());
    const byHash = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.session(hashSessionToken(session.sessionToken)) }),
    );
    expect(byHash.Item).toBeDefined();
    expect(JSON.stringify(byHash.Item)).not.toContain(session.sessionToken);
  });

  it('signing in again with the same login reaches the same user and tenant', async () => {
    const login = uniqueLogin();
    const first = await api.signIn(login);
    const second = await api.signIn(login);
    expect(second.tenantId).toBe(first.tenantId);
    expect(second.userId).toBe(first.userId);
    expect(second.sessionToken).not.toBe(first.sessionToken);
  });

  it('two racing first sign-ins of one login create one user and one tenant', async () => {
    const login = uniqueLogin('race');
    const results = await Promise.all([api.signIn(login), api.signIn(login), api.signIn(login)]);
    expect(new Set(results.map((r) => r.tenantId)).size).toBe(1);
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
  });

  it('accepts the Bearer header and the session cookie', async () => {
    const session = await api.signIn(uniqueLogin());
    expect((await api.call('GET', '/v1/billing/plans', { token: session.sessionToken })).status).toBe(200);
    const viaCookie = await api.call('GET', '/v1/billing/plans', {
      cookie: `a=b; ${SESSION_COOKIE}=${session.sessionToken}`,
    });
    expect(viaCookie.status).toBe(200);
  });

  it.each([
    ['no token', {}, 'missing_session'],
    ['a malformed token', { token: 'not-a-token' }, 'invalid_session'],
    ['an unknown token', { token: newSessionToken() }, 'invalid_session'],
    ['a non-Bearer scheme', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }, 'missing_session'],
  ])('refuses %s with 401 in the error shape', async (_label, options, code) => {
    const response = await api.call('GET', '/v1/billing/plans', options);
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe(code);
    expect(response.json.error.requestId).toBe(response.headers['x-request-id']);
  });

  it('refuses a revoked session at once', async () => {
    const session = await api.signIn(uniqueLogin());
    await revokeSession(hashSessionToken(session.sessionToken), api.clock.now());
    const response = await api.call('GET', '/v1/billing/plans', { token: session.sessionToken });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('invalid_session');
  });

  it('refuses an expired session even though its item still exists (TTL only cleans up)', async () => {
    const session = await api.signIn(uniqueLogin());
    // Move this one session's expiry into the past instead of moving the clock of the whole file.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.session(hashSessionToken(session.sessionToken)),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(api.clock.now().getTime() - 1000).toISOString() },
      }),
    );
    const response = await api.call('GET', '/v1/billing/plans', { token: session.sessionToken });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('expired_session');
  });

  it(`a session dies when the clock passes its ${SESSION_LIFETIME_SECONDS / 86400}-day lifetime`, async () => {
    const session = await api.signIn(uniqueLogin());
    api.clock.advance(SESSION_LIFETIME_SECONDS - 60);
    expect((await api.call('GET', '/v1/billing/plans', { token: session.sessionToken })).status).toBe(200);
    api.clock.advance(120);
    expect((await api.call('GET', '/v1/billing/plans', { token: session.sessionToken })).status).toBe(401);
  });
});
