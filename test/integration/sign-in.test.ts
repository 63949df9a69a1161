import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { accountId, type LocalCodeHost } from '../../lib/local/code-host.ts';
import { sessionFromCookies, signInThroughCodeHost, startFakeCodeHost } from '../support/code-host-flow.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin } from '../support/gateway.ts';

const { api } = gatewayForFile();
let codeHost: LocalCodeHost;
beforeAll(async () => {
  codeHost = await startFakeCodeHost();
});
afterAll(async () => {
  await codeHost.stop();
});

const identityOf = async (login: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.identity('github', String(accountId(login))) }),
    )
  ).Item;

describe('code-host sign-in (OAuth authorization code + PKCE, as GitHub speaks it)', () => {
  it('redirects to the code host with PKCE S256, a one-time state and the callback address', async () => {
    const start = await api.call('GET', '/v1/auth/sign-in');
    expect(start.status).toBe(302);
    const location = new URL(start.headers.location ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${codeHost.url}/login/oauth/authorize`);
    expect(location.searchParams.get('client_id')).toBe(codeHost.clientId);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('redirect_uri')).toBe('https://api.test/v1/auth/callback');
    expect(location.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(start.cookies.join()).toMatch(/scp_oauth_state=.*HttpOnly; Secure; SameSite=Lax/);
  });

  it('JSON flow: first sign-in creates the user with a provisioning tenant it administers, and returns the sessionToken', async () => {
    const login = uniqueLogin('gh');
    const { callback } = await signInThroughCodeHost(api, login);
    expect(callback.status).toBe(200);
    expect(callback.json).toEqual({ sessionToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const me = await api.call('GET', '/v1/me', { token: callback.json.sessionToken });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({
      user: { login, email: `${login}@users.code-host.test` },
      role: 'administrator',
      slug: null,
      stackName: null,
      homeRegion: 'eu',
      billingState: 'provisioning',
    });
  });

  it('browser flow: sets the session cookie and redirects to the tenant app', async () => {
    const { callback } = await signInThroughCodeHost(api, uniqueLogin('gh'), { accept: 'text/html' });
    expect(callback.status).toBe(302);
    expect(callback.headers.location).toBe('https://app.test/');
    const token = sessionFromCookies(callback.cookies);
    expect(token).toBeDefined();
    expect(callback.cookies.join()).toMatch(/scp_session=.*HttpOnly; Secure; SameSite=Lax/);
    expect((await api.call('GET', '/v1/me', { cookie: `scp_session=${token}` })).status).toBe(200);
  });

  it('signing in again reaches the same user and tenant', async () => {
    const login = uniqueLogin('gh');
    const first = await signInThroughCodeHost(api, login);
    const second = await signInThroughCodeHost(api, login);
    const meFirst = await api.call('GET', '/v1/me', { token: first.callback.json.sessionToken });
    const meSecond = await api.call('GET', '/v1/me', { token: second.callback.json.sessionToken });
    expect(meSecond.json.tenantId).toBe(meFirst.json.tenantId);
    expect(meSecond.json.user.id).toBe(meFirst.json.user.id);
  });

  it('a denied consent is 403 sign_in_denied and creates nothing', async () => {
    const { callback } = await signInThroughCodeHost(api, uniqueLogin('deny'), { decision: 'deny' });
    expect(callback.status).toBe(403);
    expect(callback.json.error.code).toBe('sign_in_denied');
  });

  it('a replayed state is refused and creates nothing more', async () => {
    const login = uniqueLogin('replay');
    const { callback, callbackUrl } = await signInThroughCodeHost(api, login);
    expect(callback.status).toBe(200);
    const replay = await api.call('GET', `${callbackUrl.pathname}${callbackUrl.search}`, {
      headers: {
        accept: 'application/json',
        cookie: `scp_oauth_state=${callbackUrl.searchParams.get('state')}`,
      },
    });
    expect(replay.status).toBe(400);
    expect(replay.json.error.code).toBe('invalid_state');
  });

  it('an expired state is refused and creates nothing', async () => {
    const login = uniqueLogin('late');
    const { callback } = await signInThroughCodeHost(api, login, {
      beforeCallback: () => void api.clock.advance(11 * 60),
    });
    expect(callback.status).toBe(400);
    expect(callback.json.error.code).toBe('state_expired');
    expect(await identityOf(login)).toBeUndefined();
  });

  it('a callback in another browser (no state cookie) is refused and creates nothing', async () => {
    const login = uniqueLogin('csrf');
    const { callback } = await signInThroughCodeHost(api, login, { withoutStateCookie: true });
    expect(callback.status).toBe(400);
    expect(callback.json.error.code).toBe('invalid_state');
    expect(await identityOf(login)).toBeUndefined();
  });

  it('a failed exchange (tampered code) is refused and creates nothing', async () => {
    const login = uniqueLogin('tamper');
    const { callback } = await signInThroughCodeHost(api, login, {
      tamper: (query) => query.set('code', 'not-the-code'),
    });
    expect(callback.status).toBe(400);
    expect(callback.json.error.code).toBe('code_exchange_failed');
    expect(await identityOf(login)).toBeUndefined();
  });

  it('a code host outage is 502 and creates nothing', async () => {
    const login = uniqueLogin('down');
    codeHost.failNextExchange();
    const { callback } = await signInThroughCodeHost(api, login);
    expect(callback.status).toBe(502);
    expect(callback.json.error.code).toBe('code_host_unavailable');
    expect(await identityOf(login)).toBeUndefined();
  });

  it('an account without a verified primary address is refused and creates nothing', async () => {
    const login = uniqueLogin('unverified');
    codeHost.setEmails(login, [{ email: `${login}@example.test`, primary: true, verified: false }]);
    const { callback } = await signInThroughCodeHost(api, login);
    expect(callback.status).toBe(400);
    expect(callback.json.error.code).toBe('email_unverified');
    expect(await identityOf(login)).toBeUndefined();
  });

  it('a callback without state is refused', async () => {
    const response = await api.call('GET', '/v1/auth/callback?code=abc');
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('invalid_state');
  });
});

describe('sign-out', () => {
  it('makes the token useless immediately and clears the cookie', async () => {
    const { callback } = await signInThroughCodeHost(api, uniqueLogin('out'));
    const token = callback.json.sessionToken;
    const out = await api.call('POST', '/v1/auth/sign-out', { token });
    expect(out.status).toBe(204);
    expect(out.cookies.join()).toMatch(/scp_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await api.call('GET', '/v1/me', { token });
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe('invalid_session');
  });

  it('revokes only the session it was sent with', async () => {
    const login = uniqueLogin('two');
    const laptop = (await signInThroughCodeHost(api, login)).callback.json.sessionToken;
    const phone = (await signInThroughCodeHost(api, login)).callback.json.sessionToken;
    await api.call('POST', '/v1/auth/sign-out', { token: laptop });
    expect((await api.call('GET', '/v1/me', { token: phone })).status).toBe(200);
  });
});
