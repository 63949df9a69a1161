import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { API_GATEWAY_MAX_BODY_BYTES } from '../../lib/local/http-adapter.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin, uniqueSlug } from '../support/gateway.ts';

/** Bad input gets a clear 4xx and writes nothing. */

const { api } = gatewayForFile();

const slugClaim = async (slug: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.slug(slug) }))).Item;
const slugOf = async (token: string) => (await api.call('GET', '/v1/me', { token })).json.slug;

describe('a JSON endpoint reads only JSON (415)', () => {
  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'application/octet-stream',
  ])('POST /v1/tenant/slug with a %s body: 415, and the tenant has no slug', async (contentType) => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    const response = await api.call('POST', '/v1/tenant/slug', {
      token: sessionToken,
      rawBody: JSON.stringify({ slug }),
      headers: { 'content-type': contentType },
    });
    expect(response.status).toBe(415);
    expect(response.json.error.code).toBe('unsupported_media_type');
    expect(response.json.error.message).toContain('Content-Type: application/json');
    expect(await slugOf(sessionToken)).toBeNull();
    expect(await slugClaim(slug)).toBeUndefined();
  });

  it('the same body as application/json; charset=UTF-8 locks the slug', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    const response = await api.call('POST', '/v1/tenant/slug', {
      token: sessionToken,
      rawBody: JSON.stringify({ slug }),
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
    });
    expect(response.status).toBe(200);
    expect(await slugOf(sessionToken)).toBe(slug);
  });

  it('a bodyless POST needs no Content-Type (the portal, sign-out)', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const response = await api.call('POST', '/v1/auth/sign-out', { token: sessionToken });
    expect(response.status).toBe(204);
  });

  it('the local sign-in refuses a form body with 415 and creates no user', async () => {
    const login = uniqueLogin();
    const refused = await api.call('POST', '/_local/sign-in', {
      rawBody: `login=${login}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refused.status).toBe(415);
    expect(refused.json.error.code).toBe('unsupported_media_type');
    const signedIn = await api.signIn(login);
    // The first real sign-in is the one that created the user and its tenant: it is administrator.
    expect(signedIn.role).toBe('administrator');
  });
});

describe('slugs with "--" in the third and fourth characters (punycode look-alikes)', () => {
  it.each(['xn--80ak6aa92e', 'ab--cd'])('%s: 400 slug_hyphens, nothing claimed', async (slug) => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const response = await api.call('POST', '/v1/tenant/slug', { token: sessionToken, body: { slug } });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('slug_hyphens');
    expect(response.json.error.message).toContain('"--"');
    expect(await slugClaim(slug)).toBeUndefined();
    expect(await slugOf(sessionToken)).toBeNull();
  });
});

describe('request size limits', () => {
  it('a body over API Gateway’s 10 MB is 413 as API Gateway answers it, and the route is not run', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    const body = JSON.stringify({ slug, padding: 'x'.repeat(API_GATEWAY_MAX_BODY_BYTES) });
    const response = await fetch(`${api.apiUrl}/v1/tenant/slug`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'Request Entity Too Large' });
    expect(await slugOf(sessionToken)).toBeNull();
    expect(await slugClaim(slug)).toBeUndefined();
  });

  it('a body over 10 MB sent without Content-Length (chunked) is 413 too', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > API_GATEWAY_MAX_BODY_BYTES) controller.close();
        else {
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        }
      },
    });
    const response = await fetch(`${api.apiUrl}/_local/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: 'Request Entity Too Large' });
  });

  it('a body over the handlers’ 16 KB (but under 10 MB) keeps 400 body_too_large', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    const response = await fetch(`${api.apiUrl}/v1/tenant/slug`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug, padding: 'x'.repeat(17 * 1024) }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
    expect(await slugOf(sessionToken)).toBeNull();
  });
});

describe('the /_local/ routes validate their input like the API', () => {
  const offset = async () => (await api.call('GET', '/_local/clock')).json.offsetSeconds as number;

  it.each([
    ['a string', { seconds: '60' }, 'invalid_field'],
    ['a negative number', { seconds: -60 }, 'invalid_field'],
    ['a fraction', { seconds: 1.5 }, 'invalid_field'],
    ['a tiny fraction', { seconds: 0.0001 }, 'invalid_field'],
    ['more than ten years', { seconds: 11 * 365 * 86400 }, 'invalid_field'],
    ['null', { seconds: null }, 'invalid_field'],
    ['missing', {}, 'invalid_field'],
    ['an unknown field', { seconds: 60, days: 1 }, 'unknown_field'],
  ])('clock/advance with %s: 400 %s, and time does not move', async (_label, body, code) => {
    const before = await offset();
    const response = await api.call('POST', '/_local/clock/advance', { body });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code, field: Object.keys(body).at(-1) ?? 'seconds' });
    expect(response.json.error.message).not.toContain('null,');
    expect(await offset()).toBe(before);
  });

  it('clock/advance says what it wants for a fraction', async () => {
    const response = await api.call('POST', '/_local/clock/advance', { body: { seconds: 1.5 } });
    expect(response.json.error.message).toContain('whole number of seconds');
  });

  it('clock/advance with whole seconds moves time', async () => {
    const before = await offset();
    const response = await api.call('POST', '/_local/clock/advance', { body: { seconds: 0 } });
    expect(response.status).toBe(200);
    expect(await offset()).toBe(before);
  });

  it.each([
    ['missing', {}, 'invalid_field'],
    ['empty', { login: '' }, 'invalid_field'],
    ['not a string', { login: 42 }, 'invalid_field'],
    ['with a space', { login: 'bad login' }, 'invalid_field'],
    ['with a double hyphen', { login: 'a--b' }, 'invalid_field'],
    ['too long', { login: 'a'.repeat(40) }, 'invalid_field'],
    ['with an unknown field', { login: 'someone', role: 'administrator' }, 'unknown_field'],
  ])('sign-in with a login %s: 400 %s', async (_label, body, code) => {
    const response = await api.call('POST', '/_local/sign-in', { body });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe(code);
    expect(response.json.sessionToken).toBeUndefined();
  });

  it.each([
    ['missing', {}, 'invalid_field'],
    ['invalid', { login: 'no/slash' }, 'invalid_field'],
    ['with an unknown field', { login: uniqueLogin('member'), role: 'administrator' }, 'unknown_field'],
  ])('members with a login %s: 400 %s, and no member is added', async (_label, body, code) => {
    const admin = await api.signIn(uniqueLogin('admin'));
    const response = await api.call('POST', '/_local/members', { token: admin.sessionToken, body });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe(code);
    const { login } = body as { login?: unknown };
    if (typeof login === 'string' && /^[a-z0-9-]+$/.test(login)) {
      // The login was never added: signing in with it makes a new tenant's administrator.
      expect((await api.signIn(login)).role).toBe('administrator');
    }
  });
});
