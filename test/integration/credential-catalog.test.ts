import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_CATALOG } from '#ports/config.ts';
import { db } from '#store/client.ts';
import { credentialPutWrite, getCredential } from '#store/credentials.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { documented, openapi } from '../support/openapi-schema.ts';
import { storedSnapshot } from '../support/stored.ts';

/**
 * GET /v1/credentials/catalog (docs/credentials.md): the Provider catalog and the consent text the
 * console shows, and provisioning holding a Credential's consent to that text's version.
 */

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

const catalog = (token?: string) => api.call('GET', '/v1/credentials/catalog', token ? { token } : {});

/** The kinds that spend the tenant's own subscription (docs/credentials.md), written out here. */
const PERSONAL_KINDS = ['oauth_token', 'auth_file', 'ambient'];
const CONSENT_TEXT =
  'I am an administrator of this account. I agree that this Stack uses my own subscription with the provider through this Credential: its usage counts against that subscription, under the provider’s terms, until the Credential is archived or deleted.';

/** Material the kind takes (an auth file is a JSON object). */
const materialOf = (kind: string) =>
  kind === 'ambient' ? {} : { material: kind === 'auth_file' ? '{"api_key":"k-1"}' : `m-${kind}` };

/** Everything stored for the tenant: what a refusal must leave as it was. */
describe('GET /v1/credentials/catalog', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await api.subscribe({ plan: 'plus' });
  }, 60_000);

  it('answers every Provider of PROVIDER_CATALOG, its kinds in order with the consent and Local-only rules, and the consent text', async () => {
    const answer = await catalog(tenant.sessionToken);
    expect(answer.status).toBe(200);
    expect(answer.json.consent).toEqual({ textVersion: '2026-11', text: CONSENT_TEXT });
    expect(answer.json.providers.map((p: { provider: string }) => p.provider)).toEqual(
      Object.keys(PROVIDER_CATALOG),
    );
    for (const [provider, entry] of Object.entries(PROVIDER_CATALOG)) {
      const shown = answer.json.providers.find((p: { provider: string }) => p.provider === provider);
      expect(shown).toEqual({
        provider,
        name: entry.name,
        defaults: entry.defaults,
        kinds: Object.keys(entry.inject).map((kind) => ({
          kind,
          needsConsent: PERSONAL_KINDS.includes(kind),
          localOnly: kind === 'ambient',
          metered: kind === 'api_key',
        })),
      });
    }
    expect(answer.json.activities).toEqual(['intake', 'dispatch', 'guide']);
    expect(answer.json.efforts).toEqual(['low', 'medium', 'high']);
    documented(answer.json, 'CredentialCatalog');
    expect(openapi.paths['/v1/credentials/catalog']?.get?.operationId).toBe('GetCredentialCatalog');
  });

  it('is the same for a member of the tenant', async () => {
    const member = await api.call('POST', '/_local/members', {
      token: tenant.sessionToken,
      body: { login: `member-${Math.random().toString(36).slice(2, 8)}` },
    });
    expect(member.status).toBe(201);
    const session = await api.signIn(member.json.login);
    const answer = await catalog(session.sessionToken);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual((await catalog(tenant.sessionToken)).json);
  });

  it('without a session: 401', async () => {
    const answer = await catalog();
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('missing_session');
  });

  it('is what provisioning accepts: each listed kind provisions with consent exactly when it says so; a Local-only kind is refused on a cloud Stack', async () => {
    const { json } = await catalog(tenant.sessionToken);
    for (const provider of json.providers as {
      provider: string;
      kinds: { kind: string; needsConsent: boolean; localOnly: boolean }[];
    }[]) {
      for (const { kind, needsConsent, localOnly } of provider.kinds) {
        const name = `${provider.provider}-${kind.replace('_', '-')}`;
        const body = { provider: provider.provider, kind, ...materialOf(kind) };
        const consent = { consent: { textVersion: json.consent.textVersion } };
        const right = await api.call('POST', `/v1/credentials/${name}`, {
          token: tenant.sessionToken,
          body: { ...body, ...(needsConsent ? consent : {}) },
        });
        if (localOnly) {
          expect(right.status, name).toBe(409);
          expect(right.json.error.code).toBe('ambient_not_available');
          continue;
        }
        expect(right.status, `${name}: ${JSON.stringify(right.json)}`).toBe(201);
        const wrong = await api.call('POST', `/v1/credentials/${name}-x`, {
          token: tenant.sessionToken,
          body: { ...body, ...(needsConsent ? {} : consent) },
        });
        expect(wrong.status, name).toBe(400);
        expect(wrong.json.error.code).toBe(needsConsent ? 'consent_required' : 'consent_not_expected');
      }
    }
  });
});

describe('the consent text version a provisioning names', () => {
  it('another version than the current one is refused 400 consent_version_unknown, naming the current one, and writes nothing', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const before = await storedSnapshot(tenant);
    for (const textVersion of ['2026-10', '1', '2026-11-draft']) {
      const refused = await api.call('POST', '/v1/credentials/personal', {
        token: tenant.sessionToken,
        body: { provider: 'provider-a', kind: 'oauth_token', material: 't-1', consent: { textVersion } },
      });
      expect(refused.status, textVersion).toBe(400);
      expect(refused.json).toMatchObject({
        error: { code: 'consent_version_unknown', field: 'consent' },
        currentTextVersion: '2026-11',
      });
      expect(refused.json.error.message).toContain('"2026-11"');
      expect(refused.json.error.message).toContain(textVersion);
    }
    expect(await storedSnapshot(tenant)).toBe(before);
    expect(await getCredential(tenant.tenantId, 'primary', 'personal')).toBeUndefined();

    // The current version (as the catalog gives it) is accepted and recorded with the consent.
    const version = (await catalog(tenant.sessionToken)).json.consent.textVersion;
    const accepted = await api.call('POST', '/v1/credentials/personal', {
      token: tenant.sessionToken,
      body: {
        provider: 'provider-a',
        kind: 'oauth_token',
        material: 't-1',
        consent: { textVersion: version },
      },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.json.consent).toMatchObject({ textVersion: '2026-11', by: tenant.login });
    expect((await getCredential(tenant.tenantId, 'primary', 'personal'))?.consent?.textVersion).toBe(
      '2026-11',
    );
  });
});

describe('the name the catalog keeps', () => {
  it('a new Credential may not be named "catalog" (nothing written); one that had the name before keeps working', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const body = { provider: 'provider-c', kind: 'api_key', material: 'sk-catalog-1' };
    const before = await storedSnapshot(tenant);
    const refused = await api.call('POST', '/v1/credentials/catalog', { token: tenant.sessionToken, body });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({
      code: 'invalid_credential_name',
      field: 'name',
      message: '"catalog" is a word the API keeps; choose another name.',
      apiHint: 'GET /v1/credentials/catalog',
    });
    expect(await storedSnapshot(tenant)).toBe(before);
    // The GET still answers the catalog.
    expect((await catalog(tenant.sessionToken)).json.providers.length).toBeGreaterThan(0);

    // A Credential stored under that name before the rule: rotated, not refused.
    expect(
      (await api.call('POST', '/v1/credentials/legacy', { token: tenant.sessionToken, body })).status,
    ).toBe(201);
    const legacy = await getCredential(tenant.tenantId, 'primary', 'legacy');
    if (!legacy) throw new Error('no legacy Credential');
    await db().send(
      new TransactWriteCommand({
        TransactItems: [credentialPutWrite(tenant.tenantId, { ...legacy, name: 'catalog' }, undefined)],
      }),
    );
    const rotated = await api.call('POST', '/v1/credentials/catalog', {
      token: tenant.sessionToken,
      body: { ...body, material: 'sk-catalog-2' },
    });
    expect(rotated.status).toBe(200);
    expect((await getCredential(tenant.tenantId, 'primary', 'catalog'))?.materialVersion).toBe(
      legacy.materialVersion + 1,
    );
  });
});
