import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin, uniqueSlug } from '../support/gateway.ts';

const { api } = gatewayForFile();

const slugClaim = async (slug: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: keys.slug(slug) }))).Item;
const lock = (token: string, slug: unknown) => api.call('POST', '/v1/tenant/slug', { token, body: { slug } });

describe('POST /v1/tenant/slug', () => {
  it('locks the slug and answers the Stack name', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    const response = await lock(sessionToken, slug);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ slug, stackName: `${slug}.stacks.test` });
    const me = await api.call('GET', '/v1/me', { token: sessionToken });
    expect(me.json).toMatchObject({ slug, stackName: `${slug}.stacks.test` });
  });

  it('the same slug again is an idempotent 200', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    await lock(sessionToken, slug);
    const again = await lock(sessionToken, slug);
    expect(again.status).toBe(200);
    expect(again.json.slug).toBe(slug);
  });

  it('is permanent: another slug is 409 slug_locked, and the first stays', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    await lock(sessionToken, slug);
    const other = uniqueSlug('other');
    const response = await lock(sessionToken, other);
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ error: { code: 'slug_locked' }, slug });
    expect(await slugClaim(other)).toBeUndefined();
    expect((await api.call('GET', '/v1/me', { token: sessionToken })).json.slug).toBe(slug);
  });

  it('is unique across tenants forever: another tenant gets 409 slug_taken', async () => {
    const first = await api.signIn(uniqueLogin());
    const second = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    expect((await lock(first.sessionToken, slug)).status).toBe(200);
    const response = await lock(second.sessionToken, slug);
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('slug_taken');
    expect((await api.call('GET', '/v1/me', { token: second.sessionToken })).json.slug).toBeNull();
  });

  it('two tenants racing for one slug: exactly one wins', async () => {
    const tenants = await Promise.all(Array.from({ length: 6 }, () => api.signIn(uniqueLogin('racer'))));
    const slug = uniqueSlug('race');
    const responses = await Promise.all(tenants.map((tenant) => lock(tenant.sessionToken, slug)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409 && r.json.error.code === 'slug_taken')).toHaveLength(5);
    const winner = tenants[responses.findIndex((r) => r.status === 200)];
    expect((await slugClaim(slug))?.tenantId).toBe(winner?.tenantId);
  });

  it('one tenant racing two slugs locks exactly one', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const [a, b] = [uniqueSlug('a'), uniqueSlug('b')];
    const responses = await Promise.all([lock(sessionToken, a), lock(sessionToken, b)]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const claims = [await slugClaim(a), await slugClaim(b)].filter(Boolean);
    expect(claims).toHaveLength(1);
  });

  it.each([
    ['ab', 'slug_too_short'],
    ['Acme', 'slug_charset'],
    ['9lives', 'slug_start'],
    ['acme-', 'slug_end'],
    ['admin', 'slug_reserved'],
  ])('refuses %s with 400 %s and writes nothing', async (slug, code) => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const response = await lock(sessionToken, slug);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code, field: 'slug' });
    expect(await slugClaim(slug)).toBeUndefined();
    expect((await api.call('GET', '/v1/me', { token: sessionToken })).json.slug).toBeNull();
  });

  it('refuses a body that is not { slug: string }', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    expect((await lock(sessionToken, 42)).json.error).toMatchObject({ code: 'invalid_field', field: 'slug' });
    const extra = await api.call('POST', '/v1/tenant/slug', {
      token: sessionToken,
      body: { slug: 'fine-slug', tenantId: 'x' },
    });
    expect(extra.json.error).toMatchObject({ code: 'unknown_field', field: 'tenantId' });
  });
});

describe('roles', () => {
  it('a member can read but gets 403 admin_required for the slug', async () => {
    const admin = await api.signIn(uniqueLogin('boss'));
    const memberLogin = uniqueLogin('member');
    const member = await api.addMember(admin, memberLogin);
    expect(member).toMatchObject({ tenantId: admin.tenantId, role: 'member' });

    const me = await api.call('GET', '/v1/me', { token: member.sessionToken });
    expect(me.json).toMatchObject({ role: 'member', tenantId: admin.tenantId });
    const slug = uniqueSlug();
    const refused = await lock(member.sessionToken, slug);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('admin_required');
    expect(await slugClaim(slug)).toBeUndefined();
  });

  it('a member cannot add members', async () => {
    const admin = await api.signIn(uniqueLogin('boss'));
    const memberLogin = uniqueLogin('member');
    await api.call('POST', '/_local/members', { token: admin.sessionToken, body: { login: memberLogin } });
    const member = await api.signIn(memberLogin);
    const refused = await api.call('POST', '/_local/members', {
      token: member.sessionToken,
      body: { login: uniqueLogin() },
    });
    expect(refused.status).toBe(403);
  });

  it('a login that already has a user cannot be added as a member', async () => {
    const admin = await api.signIn(uniqueLogin('boss'));
    const other = uniqueLogin('other');
    await api.signIn(other);
    const refused = await api.call('POST', '/_local/members', {
      token: admin.sessionToken,
      body: { login: other },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('login_taken');
  });
});

describe('cookie sessions and the Origin of unsafe requests', () => {
  it('a cookie-authenticated write without the tenant app Origin is 403 origin_mismatch and writes nothing', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const slug = uniqueSlug();
    for (const origin of [undefined, 'https://evil.test', 'https://app.test.evil.test']) {
      const response = await api.call('POST', '/v1/tenant/slug', {
        cookie: `scp_session=${sessionToken}`,
        body: { slug },
        headers: origin ? { origin } : {},
      });
      expect(response.status).toBe(403);
      expect(response.json.error.code).toBe('origin_mismatch');
    }
    expect(await slugClaim(slug)).toBeUndefined();
  });

  it('with the tenant app Origin the cookie works for writes', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const response = await api.call('POST', '/v1/tenant/slug', {
      cookie: `scp_session=${sessionToken}`,
      body: { slug: uniqueSlug() },
      headers: { origin: 'https://app.test' },
    });
    expect(response.status).toBe(200);
  });

  it('reads by cookie and writes by Bearer need no Origin', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    expect((await api.call('GET', '/v1/me', { cookie: `scp_session=${sessionToken}` })).status).toBe(200);
    expect((await lock(sessionToken, uniqueSlug())).status).toBe(200);
  });
});
