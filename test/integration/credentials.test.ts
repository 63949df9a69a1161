import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Refusal } from '#core/refusal.ts';
import { openSecret } from '#ports/secrets-vault.ts';
import { db, tableName } from '#store/client.ts';
import { bindThread, getCredential, updateCredential } from '#store/credentials.ts';
import { keys } from '#store/keys.ts';
import { getTenant } from '#store/tenants.ts';
import { deleteCredential } from '../../functions/credentials/delete.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { type CallResult, type TestControlPlane, uniqueLogin } from '../support/gateway.ts';
import { documented } from '../support/openapi-schema.ts';
import { setStored, storedSnapshot } from '../support/stored.ts';

/**
 * Credentials, the tenant side, end to end through the local API Gateway: provisioning and
 * rotation with their refusals, the sealed material, the Stack a route acts on, members, archive,
 * the Guide selection, Project Credential Routes and deletion (docs/credentials.md).
 */

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

/** Secret-looking material no other test uses (so finding it anywhere is a leak of this one). */
const secret = (label: string) => `${label}-${Math.random().toString(36).slice(2)}-DO-NOT-LEAK`;
const authFile = (token: string) => JSON.stringify({ api_key: token, refresh_token: `r-${token}` });

const atStack = (stackId?: string) => (stackId ? `?stackId=${encodeURIComponent(stackId)}` : '');

const provision = (tenant: { sessionToken: string }, name: string, body: unknown, stackId?: string) =>
  api.call('POST', `/v1/credentials/${name}${atStack(stackId)}`, { token: tenant.sessionToken, body });
/** provider-c api_key Credentials of these names, each provisioned (201). */
const provisionKeys = async (tenant: { sessionToken: string }, names: string[]) => {
  for (const name of names)
    expect(
      (await provision(tenant, name, { provider: 'provider-c', kind: 'api_key', material: secret('k') }))
        .status,
    ).toBe(201);
};
/** A provider-a oauth_token Credential with consent, as the console provisions it. */
const oauthToken = (material: string) => ({
  provider: 'provider-a',
  kind: 'oauth_token',
  material,
  consent: CONSENT,
});
/** A provider-b auth_file Credential with consent. */
const consentedAuthFile = (material: string) => ({
  provider: 'provider-b',
  kind: 'auth_file',
  material,
  consent: CONSENT,
});
const list = (tenant: { sessionToken: string }, stackId?: string) =>
  api.call('GET', `/v1/credentials${atStack(stackId)}`, { token: tenant.sessionToken });
const archive = (tenant: { sessionToken: string }, name: string, stackId?: string) =>
  api.call('POST', `/v1/credentials/${name}/archive${atStack(stackId)}`, { token: tenant.sessionToken });
const remove = (tenant: { sessionToken: string }, name: string, confirmationToken?: string) =>
  api.call(
    'DELETE',
    `/v1/credentials/${name}${confirmationToken ? `?confirmationToken=${encodeURIComponent(confirmationToken)}` : ''}`,
    { token: tenant.sessionToken },
  );
const chooseGuide = (tenant: { sessionToken: string }, name: string | null, stackId = 'primary') =>
  api.call('PUT', `/v1/stacks/${stackId}/guide-credential`, { token: tenant.sessionToken, body: { name } });
const setRoutes = (tenant: { sessionToken: string }, projectId: string, body: unknown, stackId = 'primary') =>
  api.call('PUT', `/v1/stacks/${stackId}/projects/${projectId}/credential-routes`, {
    token: tenant.sessionToken,
    body,
  });
const addProject = async (tenant: Tenant, name: string) => {
  const added = await api.call('POST', '/v1/stacks/primary/projects', {
    token: tenant.sessionToken,
    body: { name, repository: `acme/${name}` },
  });
  expect(added.status).toBe(201);
  return added.json.projectId as string;
};
const desiredVersion = async (tenant: Tenant, stackId = 'primary') =>
  (await api.call('GET', `/v1/stacks/${stackId}`, { token: tenant.sessionToken })).json
    .desiredStateVersion as number;

/** Everything stored for the tenant: what a refusal must leave as it was. */
/** The Credential's item exactly as stored. */
const rawItem = async (tenant: Tenant, name: string, stackId = 'primary') =>
  (
    await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.credential(tenant.tenantId, stackId, name),
        ConsistentRead: true,
      }),
    )
  ).Item;

/**
 * Starts a reference Dispatcher for the tenant's first Stack and lets it report once; with
 * `localHostExecutor` it says it is a Local Stack using the host Executor.
 */
const startDispatcher = async (tenant: Tenant, localHostExecutor: boolean) => {
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  expect(issued.status).toBe(201);
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential, localHostExecutor },
  });
  expect(started.status).toBe(201);
  await api.fleet.tick();
  return { dispatcherId: started.json.dispatcherId as string, credential: issued.json.credential as string };
};

const expectRefused = (response: CallResult, status: number, code: string) => {
  expect(response.status, JSON.stringify(response.json)).toBe(status);
  expect(response.json.error.code).toBe(code);
};

const CONSENT = { textVersion: '2026-11' };

/** One valid provisioning of every accepted non-ambient kind of every Provider. */
const NON_AMBIENT = [
  { provider: 'provider-a', kind: 'oauth_token', consent: true, material: () => secret('oat') },
  { provider: 'provider-a', kind: 'api_key', consent: false, material: () => secret('ska') },
  { provider: 'provider-b', kind: 'auth_file', consent: true, material: () => authFile(secret('authb')) },
  { provider: 'provider-b', kind: 'api_key', consent: false, material: () => secret('skb') },
  { provider: 'provider-c', kind: 'api_key', consent: false, material: () => secret('skc') },
] as const;

describe('provisioning', () => {
  it('every accepted kind of every Provider: 201, consent recorded from the session and the Clock, usage, material sealed and never shown', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    // The Clock, not the machine's time, dates the consent.
    api.clock.advance(3600);
    const materials: string[] = [];
    let version = await desiredVersion(tenant);
    for (const [index, entry] of NON_AMBIENT.entries()) {
      const name = `${entry.provider}-${entry.kind.replace('_', '-')}`;
      const material = entry.material();
      materials.push(material);
      const before = api.clock.now().toISOString();
      const created = await provision(tenant, name, {
        provider: entry.provider,
        kind: entry.kind,
        material,
        ...(entry.consent ? { consent: CONSENT } : {}),
        ...(index === 0 ? { runtimeProfile: { intake: { model: 'model-x', effort: 'high' } } } : {}),
      });
      const after = api.clock.now().toISOString();
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      expect(created.json).toMatchObject({
        name,
        provider: entry.provider,
        kind: entry.kind,
        usage: entry.kind === 'api_key' ? 'metered' : 'personal_subscription',
        validation: { state: 'pending', reason: null, checkedAt: null },
        usable: false,
        unusableReason: 'validation_pending',
        rotatedAt: null,
        archivedAt: null,
      });
      expect(created.json.runtimeProfile).toEqual(
        index === 0 ? { intake: { model: 'model-x', effort: 'high' } } : {},
      );
      expect(created.json.createdAt >= before && created.json.createdAt <= after).toBe(true);
      if (entry.consent) {
        expect(created.json.consent).toEqual({
          by: tenant.login,
          at: created.json.createdAt,
          textVersion: CONSENT.textVersion,
        });
        expect(Date.parse(created.json.consent.at)).toBeGreaterThan(Date.now() + 3000_000);
      } else {
        expect(created.json.consent).toBeNull();
      }
      expect(JSON.stringify(created.json)).not.toContain(material);
      documented(created.json, 'Credential');
      // Each provisioning is published: the desired state's version goes up by one.
      expect(await desiredVersion(tenant)).toBe(version + 1);
      version += 1;

      // Stored sealed: neither the plaintext nor its base64 anywhere in the item; it opens, under
      // its own context only, to the material sent.
      const item = await rawItem(tenant, name);
      expect(item).toBeDefined();
      const stored = JSON.stringify(item);
      expect(stored).not.toContain(material);
      expect(stored).not.toContain(Buffer.from(material).toString('base64'));
      expect(
        await openSecret(item?.sealed, { tenantId: tenant.tenantId, stackId: 'primary', credential: name }),
      ).toBe(material);
      await expect(
        openSecret(item?.sealed, { tenantId: tenant.tenantId, stackId: 'primary', credential: 'other' }),
      ).rejects.toThrow();
    }
    const listed = await list(tenant);
    expect(listed.status).toBe(200);
    expect(listed.json.stackId).toBe('primary');
    documented(listed.json, 'CredentialList');
    expect(listed.json.credentials.map((c: { name: string }) => c.name)).toEqual(
      NON_AMBIENT.map((e) => `${e.provider}-${e.kind.replace('_', '-')}`).sort(),
    );
    expect(listed.json.guide).toEqual({
      name: null,
      selectedAt: null,
      usable: false,
      unusableReason: null,
      cleared: null,
    });
    const everything = JSON.stringify(listed.json) + (await storedSnapshot(tenant));
    for (const material of materials) {
      expect(everything).not.toContain(material);
      expect(everything).not.toContain(Buffer.from(material).toString('base64'));
    }
  });

  it('ambient: refused (409 ambient_not_available, nothing written) unless the Stack’s Dispatcher reports the host Executor; there it stores no material', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    // No Dispatcher has reported yet: not available.
    const unreported = await storedSnapshot(tenant);
    const early = await provision(tenant, 'early-ambient', {
      provider: 'provider-a',
      kind: 'ambient',
      consent: CONSENT,
    });
    expectRefused(early, 409, 'ambient_not_available');
    expect(early.json.error.message).toBe(
      "An ambient Credential uses the host's own runtime login, so it is available only on a Local Stack whose Dispatcher reports the host Executor. Use another kind on this Stack.",
    );
    expect(await storedSnapshot(tenant)).toBe(unreported);
    // A Dispatcher that is not a host-Executor Local Stack does not make ambient available either.
    await startDispatcher(tenant, false);
    for (const provider of ['provider-a', 'provider-b']) {
      const before = await storedSnapshot(tenant);
      expectRefused(
        await provision(tenant, `${provider}-ambient`, { provider, kind: 'ambient', consent: CONSENT }),
        409,
        'ambient_not_available',
      );
      expect(await storedSnapshot(tenant)).toBe(before);
    }

    const local = await api.subscribe({ plan: 'plus' });
    await startDispatcher(local, true);
    for (const provider of ['provider-a', 'provider-b']) {
      const version = await desiredVersion(local);
      const created = await provision(local, `${provider}-ambient`, {
        provider,
        kind: 'ambient',
        consent: CONSENT,
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      expect(created.json).toMatchObject({
        provider,
        kind: 'ambient',
        usage: 'personal_subscription',
        consent: { by: local.login, textVersion: CONSENT.textVersion },
      });
      const item = await rawItem(local, `${provider}-ambient`);
      expect(item).toBeDefined();
      expect(item).not.toHaveProperty('sealed');
      expect(await desiredVersion(local)).toBe(version + 1);
    }
    // provider-c has no ambient kind, even there.
    const refused = await provision(local, 'c-ambient', {
      provider: 'provider-c',
      kind: 'ambient',
      consent: CONSENT,
    });
    expectRefused(refused, 400, 'kind_not_accepted');
    expect(refused.json.accepted).toEqual(['api_key']);
  });

  it('every refusal has its code and writes nothing', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await startDispatcher(tenant, true);
    expect(
      (await provision(tenant, 'held', { provider: 'provider-a', kind: 'api_key', material: secret('k') }))
        .status,
    ).toBe(201);
    /** name, the refusal's code, provider-?, kind, the rest of the body, status (400 unless given). */
    const cases: [string, string, string, string, Record<string, unknown>?, number?][] = [
      ['c-oauth', 'kind_not_accepted', 'c', 'oauth_token', { material: 't', consent: CONSENT }],
      ['a-file', 'kind_not_accepted', 'a', 'auth_file', { material: '{"a":1}', consent: CONSENT }],
      ['b-oauth', 'kind_not_accepted', 'b', 'oauth_token', { material: 't', consent: CONSENT }],
      ['no-consent', 'consent_required', 'a', 'oauth_token', { material: 't' }],
      ['no-consent-file', 'consent_required', 'b', 'auth_file', { material: '{"a":1}' }],
      ['no-consent-ambient', 'consent_required', 'a', 'ambient'],
      ['key-consent', 'consent_not_expected', 'c', 'api_key', { material: 'k', consent: CONSENT }],
      ['key-bare', 'material_required', 'a', 'api_key'],
      ['oauth-bare', 'material_required', 'a', 'oauth_token', { consent: CONSENT }],
      ['file-bare', 'material_required', 'b', 'auth_file', { consent: CONSENT }],
      ['ambient-material', 'material_not_expected', 'b', 'ambient', { material: 'm', consent: CONSENT }],
      ['file-text', 'invalid_auth_file', 'b', 'auth_file', { material: 'not json', consent: CONSENT }],
      ['file-array', 'invalid_auth_file', 'b', 'auth_file', { material: '[{"a":1}]', consent: CONSENT }],
      ['file-empty', 'invalid_auth_file', 'b', 'auth_file', { material: '{}', consent: CONSENT }],
      ['Upper', 'invalid_credential_name', 'a', 'api_key', { material: 'k' }],
      ['-dash', 'invalid_credential_name', 'a', 'api_key', { material: 'k' }],
      ['a'.repeat(64), 'invalid_credential_name', 'a', 'api_key', { material: 'k' }],
      ['under_score', 'invalid_credential_name', 'a', 'api_key', { material: 'k' }],
      ['held', 'provider_change', 'b', 'api_key', { material: 'k' }, 409],
      ['strict', 'unknown_field', 'a', 'api_key', { material: 'k', extra: 1 }],
    ];
    /** The field each code names (provider_change names none). */
    const fieldOf: Record<string, string> = {
      kind_not_accepted: 'kind',
      consent_required: 'consent',
      consent_not_expected: 'consent',
      material_required: 'material',
      material_not_expected: 'material',
      invalid_auth_file: 'material',
      invalid_credential_name: 'name',
    };
    /** What the tenant reads, for one case of each code. */
    const messageOf: Record<string, string> = {
      'c-oauth': 'Provider C (an aggregator) accepts api_key; "oauth_token" is not one of them.',
      'a-file': 'Provider A accepts oauth_token, api_key, ambient; "auth_file" is not one of them.',
      'no-consent':
        'A oauth_token Credential spends your personal subscription with the provider: send the administrator\'s consent as consent: { "textVersion": "<the version of the consent text shown> " }.',
      'key-consent': 'An api_key needs no consent (its usage is metered by the provider): leave consent out.',
      'key-bare': 'A api_key Credential needs its material: send it as "material".',
      'ambient-material': 'An ambient Credential stores no authentication value: leave "material" out.',
      'file-text': 'The auth file was refused: the auth file is not JSON.',
      'file-empty': 'The auth file was refused: the auth file is an empty object.',
      Upper:
        'A Credential name is 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit.',
      held: 'A Credential keeps the Provider it was created with: choose a new name for a Credential of another Provider.',
    };
    for (const [name, code, provider, kind, more = {}, status = 400] of cases) {
      const body = { provider: `provider-${provider}`, kind, ...more };
      const before = await storedSnapshot(tenant);
      const response = await provision(tenant, name, body);
      expectRefused(response, status, code);
      documented(response.json, 'CredentialRefusal');
      if (code === 'provider_change') expect(response.json.error).not.toHaveProperty('field');
      else if (fieldOf[code]) expect(response.json.error.field, name).toBe(fieldOf[code]);
      if (messageOf[name]) expect(response.json.error.message).toBe(messageOf[name]);
      if (code === 'kind_not_accepted') {
        expect(response.json.accepted).toEqual(
          {
            'provider-a': ['oauth_token', 'api_key', 'ambient'],
            'provider-b': ['auth_file', 'api_key', 'ambient'],
            'provider-c': ['api_key'],
          }[body.provider],
        );
      }
      expect(await storedSnapshot(tenant), `${name}: ${code}`).toBe(before);
    }
    // An auth file over 16 KB is refused, and nothing is written.
    const before = await storedSnapshot(tenant);
    const big = JSON.stringify({ blob: 'x'.repeat(17 * 1024) });
    const tooBig = await provision(tenant, 'big-file', consentedAuthFile(big));
    expect(tooBig.status).toBe(400);
    expect(await storedSnapshot(tenant)).toBe(before);

    // Three provisionings of one new name at once: an answer that says it was applied was (the
    // material version counts them); one that read the name free and lost is 409.
    const racing = await Promise.all(
      [secret('r1'), secret('r2'), secret('r3')].map((material) =>
        provision(tenant, 'raced', { provider: 'provider-c', kind: 'api_key', material }),
      ),
    );
    expect(racing.map((r) => r.status).filter((status) => status === 201)).toHaveLength(1);
    for (const lost of racing.filter((r) => r.status === 409))
      expect(lost.json.error).toMatchObject({
        code: 'credential_conflict',
        message: 'This Credential changed meanwhile: read it again, then try again.',
        apiHint: 'GET /v1/credentials',
      });
    const applied = racing.filter((r) => r.status === 201 || r.status === 200).length;
    expect(applied + racing.filter((r) => r.status === 409).length).toBe(racing.length);
    expect((await getCredential(tenant.tenantId, 'primary', 'raced'))?.materialVersion).toBe(applied);
  });

  it('a Stack that was torn down holds no Credential: 409 stack_torn_down, not even a rotation, nothing written', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await provisionKeys(tenant, ['held']);
    // The lifecycle a finished teardown leaves (the teardown itself is test/integration/fleet.test.ts's).
    await setStored(keys.stack(tenant.tenantId, 'primary'), { lifecycle: 'torn_down' });
    const tornDown = await storedSnapshot(tenant);
    const rotation = await provision(tenant, 'held', {
      provider: 'provider-c',
      kind: 'api_key',
      material: secret('k'),
    });
    expectRefused(rotation, 409, 'stack_torn_down');
    expect(rotation.json.error.message).toBe(
      'This Stack has been torn down: its data, its exports, its Credentials and its Dispatcher are gone with it.',
    );
    expect(await storedSnapshot(tenant)).toBe(tornDown);
  });

  // The provisioning body has a limit of its own (36,864 bytes), so an auth file of the contract's
  // 16 KB fits in it JSON-escaped; test/integration/credential-limits.test.ts holds each limit to
  // the OpenAPI document.
  it('an auth file up to 16 KB is accepted; a larger one is refused as invalid_auth_file', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const fits = JSON.stringify({ token: 'x'.repeat(16 * 1024 - 20) });
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(16 * 1024);
    const accepted = await provision(tenant, 'full-file', consentedAuthFile(fits));
    expect(accepted.status).toBe(201);
    // Within the material's 16,384 characters but over 16 KB of UTF-8 (two bytes a character).
    const big = JSON.stringify({ token: 'é'.repeat(8 * 1024) });
    expect(big.length).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.byteLength(big)).toBeGreaterThan(16 * 1024);
    expectRefused(await provision(tenant, 'big-file', consentedAuthFile(big)), 400, 'invalid_auth_file');
  });
});

describe('rotation', () => {
  it('keeps the Provider, may change the kind, bumps the material version and sends it back to validation', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const { credential } = await startDispatcher(tenant, true);
    const first = secret('oat');
    const created = await provision(tenant, 'rot', {
      provider: 'provider-a',
      kind: 'oauth_token',
      material: first,
      consent: CONSENT,
      runtimeProfile: { dispatch: { effort: 'low' } },
    });
    expect(created.status).toBe(201);
    // The Dispatcher validates what the desired state lists.
    await api.fleet.tick();
    const validated = (await list(tenant)).json.credentials[0];
    expect(validated).toMatchObject({ name: 'rot', validation: { state: 'valid' }, usable: true });
    const validatedItem = await getCredential(tenant.tenantId, 'primary', 'rot');
    expect(validatedItem?.materialVersion).toBe(1);

    api.clock.advance(60);
    const version = await desiredVersion(tenant);
    const second = secret('ska');
    const rotated = await provision(tenant, 'rot', {
      provider: 'provider-a',
      kind: 'api_key',
      material: second,
    });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    expect(rotated.json).toMatchObject({
      name: 'rot',
      provider: 'provider-a',
      kind: 'api_key',
      usage: 'metered',
      consent: null,
      validation: { state: 'pending', reason: null, checkedAt: null },
      usable: false,
      createdAt: created.json.createdAt,
      // Left out, the Runtime Profile stays as it was.
      runtimeProfile: { dispatch: { effort: 'low' } },
    });
    expect(rotated.json.rotatedAt).not.toBeNull();
    expect(Date.parse(rotated.json.rotatedAt)).toBeGreaterThan(Date.parse(created.json.createdAt) + 59_000);
    expect(JSON.stringify(rotated.json)).not.toContain(second);
    documented(rotated.json, 'Credential');
    expect(await desiredVersion(tenant)).toBe(version + 1);
    const stored = await getCredential(tenant.tenantId, 'primary', 'rot');
    expect(stored?.materialVersion).toBe(2);
    // The item's write version moves on, so a writer holding the item read before fails.
    expect(stored?.version).toBe((validatedItem?.version ?? Number.NaN) + 1);
    const item = await rawItem(tenant, 'rot');
    expect(
      await openSecret(item?.sealed, { tenantId: tenant.tenantId, stackId: 'primary', credential: 'rot' }),
    ).toBe(second);
    expect(JSON.stringify(item)).not.toContain(first);
    // The Dispatcher is asked to validate the new version.
    const desired = await api.call('GET', '/v1/dispatcher/desired-state', { token: credential });
    expect(desired.json.credentials).toEqual([{ name: 'rot', version: 2 }]);
    documented(desired.json, { path: '/v1/dispatcher/desired-state', method: 'get', status: 200 });

    // A rotation to ambient keeps nothing of the old material.
    const ambient = await provision(tenant, 'rot', {
      provider: 'provider-a',
      kind: 'ambient',
      consent: CONSENT,
    });
    expect(ambient.status).toBe(200);
    expect(ambient.json).toMatchObject({ kind: 'ambient', consent: { by: tenant.login } });
    expect(await rawItem(tenant, 'rot')).not.toHaveProperty('sealed');
    expect((await getCredential(tenant.tenantId, 'primary', 'rot'))?.materialVersion).toBe(3);
  });
});

describe('the Stack a route acts on, and who may write', () => {
  it('?stackId= selects another Stack of the tenant; another tenant’s Stack is 404 stack_not_found; a member lists but cannot write', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const added = await api.addStack(tenant, 'standard');
    const second = added.json.stackId as string;
    const version = await desiredVersion(tenant, second);
    const primaryVersion = await desiredVersion(tenant);
    const material = secret('skc');
    const created = await provision(
      tenant,
      'elsewhere',
      { provider: 'provider-c', kind: 'api_key', material },
      second,
    );
    expect(created.status).toBe(201);
    expect(await desiredVersion(tenant, second)).toBe(version + 1);
    expect(await desiredVersion(tenant)).toBe(primaryVersion);
    const there = await list(tenant, second);
    expect(there.json.stackId).toBe(second);
    expect(there.json.credentials.map((c: { name: string }) => c.name)).toEqual(['elsewhere']);
    expect((await list(tenant)).json.credentials).toEqual([]);
    const item = await rawItem(tenant, 'elsewhere', second);
    expect(
      await openSecret(item?.sealed, { tenantId: tenant.tenantId, stackId: second, credential: 'elsewhere' }),
    ).toBe(material);

    // Another tenant aiming at this tenant's added Stack finds no such Stack.
    const intruder = await api.subscribe({ plan: 'plus' });
    const before = await storedSnapshot(tenant);
    expectRefused(
      await provision(
        intruder,
        'elsewhere',
        { provider: 'provider-c', kind: 'api_key', material: 'k' },
        second,
      ),
      404,
      'stack_not_found',
    );
    expectRefused(await list(intruder, second), 404, 'stack_not_found');
    expectRefused(await archive(intruder, 'elsewhere', second), 404, 'stack_not_found');
    expectRefused(
      await api.call('DELETE', `/v1/credentials/elsewhere?stackId=${second}`, {
        token: intruder.sessionToken,
      }),
      404,
      'stack_not_found',
    );
    expectRefused(await chooseGuide(intruder, 'elsewhere', second), 404, 'stack_not_found');
    expectRefused(
      await setRoutes(intruder, 'prj_x', { dispatch: { primary: 'elsewhere' } }, second),
      404,
      'stack_not_found',
    );
    expect(await storedSnapshot(tenant)).toBe(before);

    // A member of the tenant lists; every write is the administrators'.
    const memberLogin = uniqueLogin('member');
    expect(
      (
        await api.call('POST', '/_local/members', {
          token: tenant.sessionToken,
          body: { login: memberLogin },
        })
      ).status,
    ).toBe(201);
    const member = await api.signIn(memberLogin);
    const listed = await list(member, second);
    expect(listed.status).toBe(200);
    expect(listed.json.credentials.map((c: { name: string }) => c.name)).toEqual(['elsewhere']);
    expect(JSON.stringify(listed.json)).not.toContain(material);
    const projectId = await addProject(tenant, 'member-view');
    const memberBefore = await storedSnapshot(tenant);
    for (const response of [
      await provision(member, 'mine', { provider: 'provider-c', kind: 'api_key', material: 'k' }),
      await provision(
        member,
        'elsewhere',
        { provider: 'provider-c', kind: 'api_key', material: 'k' },
        second,
      ),
      await archive(member, 'elsewhere', second),
      await api.call('DELETE', `/v1/credentials/elsewhere?stackId=${second}`, { token: member.sessionToken }),
      await chooseGuide(member, 'elsewhere', second),
      await setRoutes(member, projectId, {}),
    ])
      expectRefused(response, 403, 'admin_required');
    expect(await storedSnapshot(tenant)).toBe(memberBefore);
  });
});

describe('archive and the Guide selection', () => {
  it('archive: unusable, kept in the list, clears a Guide selection naming it; an archived one cannot be the Guide; a rotation brings it back', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const material = secret('oat');
    expect((await provision(tenant, 'guide-key', oauthToken(material))).status).toBe(201);
    const selected = await chooseGuide(tenant, 'guide-key');
    expect(selected.status, JSON.stringify(selected.json)).toBe(200);
    expect(selected.json).toMatchObject({
      name: 'guide-key',
      usable: false,
      unusableReason: 'validation_pending',
    });
    expect(selected.json.selectedAt).not.toBeNull();
    documented(selected.json, 'GuideSelection');

    api.clock.advance(30);
    const archived = await archive(tenant, 'guide-key');
    expect(archived.status).toBe(200);
    expect(archived.json).toMatchObject({ name: 'guide-key', usable: false, unusableReason: 'archived' });
    const archivedAt = archived.json.archivedAt as string;
    expect(archivedAt).not.toBeNull();
    expect(JSON.stringify(archived.json)).not.toContain(material);
    documented(archived.json, 'Credential');
    const listed = await list(tenant);
    expect(listed.json.credentials).toEqual([archived.json]);
    expect(listed.json.guide).toEqual({
      name: null,
      selectedAt: null,
      usable: false,
      unusableReason: null,
      cleared: { name: 'guide-key', reason: 'archived', at: archivedAt },
    });
    // Archiving again changes nothing.
    const again = await archive(tenant, 'guide-key');
    expect(again.json.archivedAt).toBe(archivedAt);
    const unknown = await archive(tenant, 'no-such');
    expectRefused(unknown, 404, 'credential_not_found');
    expect(unknown.json.error.message).toBe(
      'This Stack has no Credential "no-such": GET /v1/credentials?stackId=primary lists them.',
    );

    const before = await storedSnapshot(tenant);
    const refused = await chooseGuide(tenant, 'guide-key');
    expectRefused(refused, 409, 'credential_unusable');
    expect(refused.json.reason).toBe('archived');
    expect(refused.json.error.message).toBe(
      '"guide-key" cannot be the Guide Credential: it is archived. Provision it again or choose another.',
    );
    documented(refused.json, 'CredentialRefusal');
    expect(await storedSnapshot(tenant)).toBe(before);

    // Provisioned again, it is no longer archived.
    const back = await provision(tenant, 'guide-key', oauthToken(secret('oat')));
    expect(back.status).toBe(200);
    expect(back.json.archivedAt).toBeNull();
  });

  it('guide: selects one (200 with its name), clears it with null, refuses an unknown one', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await provisionKeys(tenant, ['g-one', 'g-two']);
    expect((await chooseGuide(tenant, 'g-one')).json.name).toBe('g-one');
    const switched = await chooseGuide(tenant, 'g-two');
    expect(switched.status).toBe(200);
    expect(switched.json.name).toBe('g-two');
    expect((await list(tenant)).json.guide.name).toBe('g-two');
    expectRefused(await chooseGuide(tenant, 'g-none'), 404, 'credential_not_found');
    expect((await list(tenant)).json.guide.name).toBe('g-two');
    const cleared = await chooseGuide(tenant, null);
    expect(cleared.status).toBe(200);
    expect(cleared.json).toMatchObject({
      name: null,
      usable: false,
      cleared: { name: 'g-two', reason: 'cleared_by_administrator' },
    });
    expect((await list(tenant)).json.guide).toEqual(cleared.json);
    documented(cleared.json, 'GuideSelection');
    // Clearing with nothing selected is fine and changes nothing.
    const before = await storedSnapshot(tenant);
    expect((await chooseGuide(tenant, null)).status).toBe(200);
    expect(await storedSnapshot(tenant)).toBe(before);
  });

  it('refused by its validation: the tenant reads our reason (never the Dispatcher’s words), also for a verdict stored before the codes; it cannot be the Guide', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await provisionKeys(tenant, ['refused', 'refused-early']);
    const checkedAt = api.clock.now().toISOString();
    const verdict = async (name: string, reasonCode?: 'provider_refused') => {
      const stored = await getCredential(tenant.tenantId, 'primary', name);
      if (!stored) throw new Error(`no Credential ${name}`);
      expect(
        await updateCredential(tenant.tenantId, stored, {
          validation: {
            state: 'invalid',
            ...(reasonCode ? { reasonCode } : {}),
            dispatcherReason: 'upstream: key sk-REVOKED-77 revoked by ops@provider',
            checkedAt,
          },
        }),
      ).toBe(true);
    };
    await verdict('refused', 'provider_refused');
    // A verdict stored before the reason codes has none.
    await verdict('refused-early');
    const listed = await list(tenant);
    expect(listed.status).toBe(200);
    for (const name of ['refused', 'refused-early'])
      expect(listed.json.credentials.find((c: { name: string }) => c.name === name)).toMatchObject({
        validation: {
          state: 'invalid',
          reasonCode: 'provider_refused',
          reason:
            'The Stack checked this Credential with its provider, and the provider did not accept it. Nothing is billed for it, and no Thread or Guide Session uses it. Provision it again with new material (a rotation), or route another Credential.',
          checkedAt,
        },
        usable: false,
        unusableReason: 'validation_failed',
      });
    expect(JSON.stringify(listed.json)).not.toContain('REVOKED');

    const before = await storedSnapshot(tenant);
    const refused = await chooseGuide(tenant, 'refused');
    expectRefused(refused, 409, 'credential_unusable');
    expect(refused.json).toMatchObject({
      reason: 'validation_failed',
      error: {
        message:
          '"refused" cannot be the Guide Credential: it is refused by its validation. Provision it again or choose another.',
      },
    });
    expect(await storedSnapshot(tenant)).toBe(before);
  });
});

describe('Project Credential Routes', () => {
  it('sets Primary and Fallback per activity; refuses an unknown Credential (404), an archived one (409), a Fallback equal to the Primary (400)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await provisionKeys(tenant, ['main', 'spare', 'old']);
    expect((await archive(tenant, 'old')).status).toBe(200);
    const projectId = await addProject(tenant, 'routed');
    const set = await setRoutes(tenant, projectId, {
      intake: { primary: 'main', fallback: 'spare' },
      dispatch: { primary: 'spare' },
    });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect(set.json).toEqual({
      projectId,
      stackId: 'primary',
      credentialRoutes: { intake: { primary: 'main', fallback: 'spare' }, dispatch: { primary: 'spare' } },
    });
    documented(set.json, {
      path: '/v1/stacks/{stackId}/projects/{projectId}/credential-routes',
      method: 'put',
      status: 200,
    });
    const projects = await api.call('GET', '/v1/stacks/primary/projects', { token: tenant.sessionToken });
    documented(projects.json, { path: '/v1/stacks/{stackId}/projects', method: 'get', status: 200 });
    expect(
      projects.json.projects.find((p: { projectId: string }) => p.projectId === projectId),
    ).toMatchObject({
      credentialRoutes: set.json.credentialRoutes,
    });

    /** The body, the status, the code, and (for some) the field and message the tenant reads. */
    const refusals: [unknown, number, string, { field: string; message: string }?][] = [
      [{ dispatch: { primary: 'ghost' } }, 404, 'credential_not_found'],
      [{ intake: { primary: 'main', fallback: 'ghost' } }, 404, 'credential_not_found'],
      [
        { dispatch: { primary: 'old' } },
        409,
        'credential_archived',
        { field: 'dispatch.primary', message: '"old" is archived: it cannot be the dispatch primary.' },
      ],
      [
        { intake: { primary: 'main', fallback: 'old' } },
        409,
        'credential_archived',
        { field: 'intake.fallback', message: '"old" is archived: it cannot be the intake fallback.' },
      ],
      [
        { dispatch: { primary: 'main', fallback: 'main' } },
        400,
        'invalid_route',
        {
          field: 'dispatch.fallback',
          message: "The dispatch route's Fallback must differ from its Primary.",
        },
      ],
      [{ dispatch: { primary: 'Main' } }, 400, 'invalid_field'],
      [{ guide: { primary: 'main' } }, 400, 'unknown_field'],
    ];
    for (const [body, status, code, error] of refusals) {
      const before = await storedSnapshot(tenant);
      const response = await setRoutes(tenant, projectId, body);
      expectRefused(response, status, code);
      if (error) expect(response.json.error).toMatchObject(error);
      expect(await storedSnapshot(tenant), JSON.stringify(body)).toBe(before);
    }
    const noProject = await setRoutes(tenant, 'prj_missing', { dispatch: { primary: 'main' } });
    expectRefused(noProject, 404, 'project_not_found');
    expect(noProject.json.error.message).toBe(
      'This Stack has no Project "prj_missing": GET /v1/stacks/primary/projects lists them.',
    );

    // The routes are replaced as a whole: an activity left out has no route.
    const replaced = await setRoutes(tenant, projectId, { dispatch: { primary: 'main' } });
    expect(replaced.json.credentialRoutes).toEqual({ dispatch: { primary: 'main' } });
  });
});

describe('deletion', () => {
  it('blocked while routes name it (every use listed), then confirmed with the Thread count (0 included), then deleted', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await provisionKeys(tenant, ['doomed', 'keeper', 'free']);
    const first = await addProject(tenant, 'first');
    const second = await addProject(tenant, 'second');
    expect(
      (
        await setRoutes(tenant, first, {
          intake: { primary: 'doomed', fallback: 'keeper' },
          dispatch: { primary: 'doomed' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await setRoutes(tenant, second, { dispatch: { primary: 'keeper', fallback: 'doomed' } })).status,
    ).toBe(200);

    let before = await storedSnapshot(tenant);
    const blocked = await remove(tenant, 'doomed');
    expectRefused(blocked, 409, 'credential_in_use');
    expect(blocked.json.error).toMatchObject({
      message: 'Credential Routes name "doomed": change each one listed, then delete it.',
      apiHint: 'PUT /v1/stacks/primary/projects/{projectId}/credential-routes',
    });
    expect(blocked.json.uses).toHaveLength(3);
    expect(blocked.json.uses).toEqual(
      expect.arrayContaining([
        { projectId: first, activity: 'intake', position: 'primary' },
        { projectId: first, activity: 'dispatch', position: 'primary' },
        { projectId: second, activity: 'dispatch', position: 'fallback' },
      ]),
    );
    documented(blocked.json, 'CredentialRefusal');
    expect(await storedSnapshot(tenant)).toBe(before);

    // The routes change; Threads are still bound to it (and one to another Credential).
    expect(
      (await setRoutes(tenant, first, { intake: { primary: 'keeper' }, dispatch: { primary: 'keeper' } }))
        .status,
    ).toBe(200);
    expect((await setRoutes(tenant, second, { dispatch: { primary: 'keeper' } })).status).toBe(200);
    const bind = (threadId: string, credentialName: string) =>
      bindThread(tenant.tenantId, {
        threadId,
        stackId: 'primary',
        projectId: first,
        activity: 'dispatch',
        credentialName,
        position: 'primary',
        model: 'model-x',
        effort: 'medium',
        createdAt: api.clock.now().toISOString(),
      });
    expect(await bind('t-1', 'doomed')).toBe(true);
    expect(await bind('t-2', 'doomed')).toBe(true);
    expect(await bind('t-3', 'keeper')).toBe(true);
    // It is the Guide Credential too: a deletion clears that selection.
    expect((await chooseGuide(tenant, 'doomed')).status).toBe(200);

    // A token never issued is refused as such; nothing written.
    before = await storedSnapshot(tenant);
    const forged = await remove(tenant, 'doomed', 'forged-token');
    expectRefused(forged, 400, 'invalid_confirmation');
    expect(forged.json.error.message).toBe(
      'This confirmation token is not the one issued for this Credential: use the latest token, or ask again without one.',
    );
    expect(await storedSnapshot(tenant)).toBe(before);

    const asked = await remove(tenant, 'doomed');
    expectRefused(asked, 409, 'confirmation_required');
    expect(asked.json.threadCount).toBe(2);
    expect(asked.json.error.message).toBe(
      '2 Threads are bound to "doomed" and will no longer be resumable. Repeat the request with confirmationToken=<the token> within 15 minutes to delete it.',
    );
    expect(asked.json.confirmationToken).toEqual(expect.any(String));
    expect(asked.json.confirmationToken.length).toBeGreaterThan(20);
    documented(asked.json, 'CredentialRefusal');
    // The token itself is never stored.
    expect(await storedSnapshot(tenant)).not.toContain(asked.json.confirmationToken);

    // A wrong token does not delete, and the issued token stays valid.
    const wrong = await remove(tenant, 'doomed', `${asked.json.confirmationToken}x`);
    expectRefused(wrong, 400, 'invalid_confirmation');
    expect((await list(tenant)).json.credentials.map((c: { name: string }) => c.name)).toContain('doomed');

    // A Thread bound meanwhile makes the count confirmed stale: confirm again.
    expect(await bind('t-4', 'doomed')).toBe(true);
    const recount = await remove(tenant, 'doomed', asked.json.confirmationToken);
    expectRefused(recount, 409, 'confirmation_required');
    expect(recount.json.threadCount).toBe(3);
    expect((await list(tenant)).json.credentials.map((c: { name: string }) => c.name)).toContain('doomed');

    const deleted = await remove(tenant, 'doomed', recount.json.confirmationToken);
    expect(deleted.status, JSON.stringify(deleted.json)).toBe(200);
    expect(deleted.json).toEqual({ name: 'doomed', deleted: true, nonResumableThreads: 3 });
    documented(deleted.json, { path: '/v1/credentials/{name}', method: 'delete', status: 200 });
    const after = await list(tenant);
    documented(after.json, 'CredentialList');
    expect(after.json.credentials.map((c: { name: string }) => c.name)).toEqual(['free', 'keeper']);
    expect(after.json.guide).toMatchObject({ name: null, cleared: { name: 'doomed', reason: 'deleted' } });
    expect(await rawItem(tenant, 'doomed')).toBeUndefined();
    expectRefused(await remove(tenant, 'doomed'), 404, 'credential_not_found');
    expectRefused(
      await remove(tenant, 'doomed', recount.json.confirmationToken),
      404,
      'credential_not_found',
    );

    // No route and no Thread: still a confirmation first, reporting that no Thread stops; nothing
    // is deleted before it.
    const unbound = await remove(tenant, 'free');
    expectRefused(unbound, 409, 'confirmation_required');
    expect(unbound.json.threadCount).toBe(0);
    expect(unbound.json.error.message).toBe(
      'No Thread is bound to "free": none becomes non-resumable. Repeat the request with confirmationToken=<the token> within 15 minutes to delete it.',
    );
    documented(unbound.json, 'CredentialRefusal');
    expect((await list(tenant)).json.credentials.map((c: { name: string }) => c.name)).toEqual([
      'free',
      'keeper',
    ]);
    const confirmed = await remove(tenant, 'free', unbound.json.confirmationToken);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json).toEqual({ name: 'free', deleted: true, nonResumableThreads: 0 });
    expect((await list(tenant)).json.credentials.map((c: { name: string }) => c.name)).toEqual(['keeper']);
  });

  it('one Thread is said so; asking again without a token issues a new one (the old one then confirms nothing); a token confirms only before it expires', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await provisionKeys(tenant, ['once']);
    expect(
      await bindThread(tenant.tenantId, {
        threadId: 't-once',
        stackId: 'primary',
        projectId: 'prj_once',
        activity: 'dispatch',
        credentialName: 'once',
        position: 'primary',
        model: 'model-x',
        effort: 'medium',
        createdAt: api.clock.now().toISOString(),
      }),
    ).toBe(true);
    const first = await remove(tenant, 'once');
    expectRefused(first, 409, 'confirmation_required');
    expect(first.json).toMatchObject({
      threadCount: 1,
      error: {
        message:
          '1 Thread is bound to "once" and will no longer be resumable. Repeat the request with confirmationToken=<the token> within 15 minutes to delete it.',
      },
    });
    const second = await remove(tenant, 'once');
    expectRefused(second, 409, 'confirmation_required');
    expect(second.json.confirmationToken).toEqual(expect.any(String));
    expect(second.json.confirmationToken).not.toBe(first.json.confirmationToken);
    const before = await storedSnapshot(tenant);
    expectRefused(await remove(tenant, 'once', first.json.confirmationToken), 400, 'invalid_confirmation');
    expect(await storedSnapshot(tenant)).toBe(before);

    // The expiry to the millisecond, through the use case with times of the test's choosing.
    const owner = await getTenant(tenant.tenantId);
    if (!owner) throw new Error('no tenant');
    const attempt = async (confirmationToken: string | undefined, now: Date) => {
      try {
        return await deleteCredential({
          tenant: owner,
          stackId: undefined,
          name: 'once',
          confirmationToken,
          now,
        });
      } catch (error) {
        if (error instanceof Refusal) return error;
        throw error;
      }
    };
    const issuedAt = api.clock.now().getTime();
    const issued = await attempt(undefined, new Date(issuedAt));
    if (!(issued instanceof Refusal)) throw new Error('deleted without a token');
    expect(issued.code).toBe('confirmation_required');
    expect(issued.extra.expiresAt).toBe(new Date(issuedAt + 15 * 60_000).toISOString());
    // At its expiry the token confirms nothing: a new one is issued and the Credential stays.
    const expired = await attempt(issued.extra.confirmationToken as string, new Date(issuedAt + 15 * 60_000));
    if (!(expired instanceof Refusal)) throw new Error('deleted with an expired token');
    expect(expired.code).toBe('confirmation_required');
    expect(expired.extra.confirmationToken).not.toBe(issued.extra.confirmationToken);
    expect(await getCredential(tenant.tenantId, 'primary', 'once')).toBeDefined();
    // The new one confirms until the last millisecond before its own expiry.
    const deleted = await attempt(
      expired.extra.confirmationToken as string,
      new Date(issuedAt + 30 * 60_000 - 1),
    );
    expect(deleted).toEqual({ name: 'once', deleted: true, nonResumableThreads: 1 });
    expect(await getCredential(tenant.tenantId, 'primary', 'once')).toBeUndefined();
  });
});

describe('the Dispatcher side, as documented', () => {
  it('material, verdict, Thread and Guide Session answers and refusals have the fields docs/api/openapi.json gives them', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const { credential } = await startDispatcher(tenant, false);
    const asDispatcher = (method: string, url: string, body?: unknown) =>
      api.call(method, url, { token: credential, ...(body === undefined ? {} : { body }) });
    const material = secret('oat');
    expect((await provision(tenant, 'doc-a', oauthToken(material))).status).toBe(201);
    expect(
      (await provision(tenant, 'doc-b', { provider: 'provider-b', kind: 'api_key', material: secret('skb') }))
        .status,
    ).toBe(201);
    const read = await asDispatcher('GET', '/v1/dispatcher/credentials/doc-a');
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      name: 'doc-a',
      version: 1,
      inject: { env: { PROVIDER_A_OAUTH_TOKEN: material } },
    });
    documented(read.json, { path: '/v1/dispatcher/credentials/{name}', method: 'get', status: 200 });
    const verdict = await asDispatcher('POST', '/v1/dispatcher/credentials/doc-a/validation', {
      version: 1,
      outcome: 'valid',
    });
    expect(verdict.status).toBe(200);
    documented(verdict.json, {
      path: '/v1/dispatcher/credentials/{name}/validation',
      method: 'post',
      status: 200,
    });
    const stale = await asDispatcher('POST', '/v1/dispatcher/credentials/doc-b/validation', {
      version: 7,
      outcome: 'valid',
    });
    expectRefused(stale, 409, 'stale_version');
    documented(stale.json, 'DispatcherCredentialRefusal');
    await api.fleet.tick();

    const projectId = await addProject(tenant, 'documented');
    const noRoute = await asDispatcher('POST', '/v1/dispatcher/threads', {
      threadId: 'doc-t0',
      projectId,
      activity: 'intake',
    });
    expectRefused(noRoute, 409, 'no_credential_route');
    documented(noRoute.json, 'DispatcherCredentialRefusal');
    expect(
      (await setRoutes(tenant, projectId, { dispatch: { primary: 'doc-a', fallback: 'doc-b' } })).status,
    ).toBe(200);
    const thread = await asDispatcher('POST', '/v1/dispatcher/threads', {
      threadId: 'doc-t1',
      projectId,
      activity: 'dispatch',
    });
    expect(thread.status, JSON.stringify(thread.json)).toBe(200);
    documented(thread.json, 'ThreadBinding');

    const none = await asDispatcher('POST', '/v1/dispatcher/guide-sessions', { threadId: 'doc-g0' });
    expectRefused(none, 409, 'guide_unavailable');
    documented(none.json, 'DispatcherCredentialRefusal');
    expect((await chooseGuide(tenant, 'doc-b')).status).toBe(200);
    const guide = await asDispatcher('POST', '/v1/dispatcher/guide-sessions', { threadId: 'doc-g1' });
    expect(guide.status, JSON.stringify(guide.json)).toBe(200);
    expect(guide.json).toMatchObject({ activity: 'guide', credential: { name: 'doc-b', position: 'guide' } });
    documented(guide.json, 'ThreadBinding');
  });
});
