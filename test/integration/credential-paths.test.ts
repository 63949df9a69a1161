import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '#http/session-token.ts';
import { config } from '#ports/config.ts';
import { getCredential } from '#store/credentials.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';

/**
 * The specification's own Credential paths, `POST {base_url}/credentials/:name` and
 * `GET {base_url}/credentials`, answer as ours do (`/v1/credentials/...`): the same route of
 * lib/routes.ts, the same authorizer, handler and store, through the local API Gateway against
 * DynamoDB Local; with the session as a Bearer token or as the browser's cookie.
 */

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

const material = () => `sk-spec-${Math.random().toString(36).slice(2)}`;

let tenant: Tenant;
beforeAll(async () => {
  tenant = await api.subscribe({ plan: 'plus' });
});

describe("the specification's Credential paths", () => {
  it('POST /credentials/:name provisions, then rotates, the Credential that /v1/credentials lists', async () => {
    const first = material();
    const created = await api.call('POST', '/credentials/spec-key', {
      token: tenant.sessionToken,
      body: { provider: 'provider-c', kind: 'api_key', material: first },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ name: 'spec-key', provider: 'provider-c', kind: 'api_key' });
    expect(JSON.stringify(created.json)).not.toContain(first);
    expect(await getCredential(tenant.tenantId, 'primary', 'spec-key')).toMatchObject({ materialVersion: 1 });

    const listed = await api.call('GET', '/v1/credentials', { token: tenant.sessionToken });
    expect(listed.json.credentials.map((c: { name: string }) => c.name)).toEqual(['spec-key']);

    // The same name again at the spec's path rotates it, as ours does.
    const rotated = await api.call('POST', '/credentials/spec-key?stackId=primary', {
      token: tenant.sessionToken,
      body: { provider: 'provider-c', kind: 'api_key', material: material() },
    });
    expect(rotated.status).toBe(200);
    expect(await getCredential(tenant.tenantId, 'primary', 'spec-key')).toMatchObject({ materialVersion: 2 });
  });

  it('GET /credentials answers what GET /v1/credentials answers, with the Bearer token or the session cookie', async () => {
    const ours = await api.call('GET', '/v1/credentials?stackId=primary', { token: tenant.sessionToken });
    const spec = await api.call('GET', '/credentials?stackId=primary', { token: tenant.sessionToken });
    expect(spec.status).toBe(200);
    expect(spec.json).toEqual(ours.json);
    const byCookie = await api.call('GET', '/credentials', {
      cookie: `${SESSION_COOKIE}=${tenant.sessionToken}`,
    });
    expect(byCookie.status).toBe(200);
    expect(byCookie.json).toEqual(ours.json);
  });

  it('the browser session provisions at the spec path from the tenant app, and only from it', async () => {
    const cookie = `${SESSION_COOKIE}=${tenant.sessionToken}`;
    const body = { provider: 'provider-c', kind: 'api_key', material: material() };
    const foreign = await api.call('POST', '/credentials/cookie-key', {
      cookie,
      body,
      headers: { origin: 'https://elsewhere.example' },
    });
    expect([foreign.status, foreign.json.error.code]).toEqual([403, 'origin_mismatch']);
    expect(await getCredential(tenant.tenantId, 'primary', 'cookie-key')).toBeUndefined();
    const fromApp = await api.call('POST', '/credentials/cookie-key', {
      cookie,
      body,
      headers: { origin: config.tenantAppOrigin() },
    });
    expect(fromApp.status).toBe(201);
  });

  it('the same rules: no session is 401, refusals are ours', async () => {
    const anonymous = await api.call('POST', '/credentials/anon-key', {
      body: { provider: 'provider-c', kind: 'api_key', material: material() },
    });
    expect(anonymous.status).toBe(401);
    expect((await api.call('GET', '/credentials')).status).toBe(401);
    const badName = await api.call('POST', '/credentials/Not_A_Name', {
      token: tenant.sessionToken,
      body: { provider: 'provider-c', kind: 'api_key', material: material() },
    });
    expect([badName.status, badName.json.error.code]).toEqual([400, 'invalid_credential_name']);
  });

  it('only the two paths the specification names are served outside /v1', async () => {
    for (const [method, path] of [
      ['DELETE', '/credentials/spec-key'],
      ['POST', '/credentials/spec-key/archive'],
      ['GET', '/credentials/catalog'],
    ] as const) {
      const answer = await api.call(method, path, { token: tenant.sessionToken });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
  });
});
