import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Answer,
  localClient,
  type PayingTenant,
  sharedCloud,
  uniqueLogin,
} from '../support/local-cloud.ts';

/**
 * Credentials end to end on the shared `npm start`, over HTTP (docs/credentials.md,
 * docs/dispatcher.md "Credentials"): every accepted kind of every Provider and the refusals of the
 * others, rotation, Threads binding their resolved profile for good, the Fallback with its own
 * profile, the Guide and its clearing, deletion with its blocking list and its confirmation,
 * isolation between tenants, members and Stacks; and, after every test, no secret in any
 * tenant-facing answer nor in any line the server wrote (the shared server logs at DEBUG, so
 * every log line is there), and at the end none in anything it keeps on disk.
 *
 * Each test pays for its own tenants, whose reference Dispatchers it ticks by hand.
 */

const server = sharedCloud();
const cloud = localClient(() => server);

/** Every secret provisioned in this file (material, and each secret field of an auth file). */
const secrets: string[] = [];
const secret = (label: string) => {
  const value = `sk-e2e-${label}-${randomBytes(12).toString('hex')}`;
  secrets.push(value);
  return value;
};
/** An auth file whose every field is a secret. */
const authFile = (label: string) =>
  JSON.stringify({ api_key: secret(`${label}-key`), refresh_token: secret(`${label}-refresh`) });
const leaksIn = (text: string) => secrets.filter((s) => text.includes(s));

interface Seen {
  method: string;
  path: string;
  status: number;
  text: string;
  /** An answer to a Dispatcher that may carry material (a Thread, a Guide Session, a read). */
  dispatcherFacing: boolean;
}
/** Every answer the current test received, kept whole. */
let seen: Seen[] = [];
beforeEach(() => {
  seen = [];
});
/** The answers that may not carry a secret: all but a Dispatcher's successful reads. */
const tenantFacing = () => seen.filter((s) => !(s.dispatcherFacing && s.status < 300));
afterEach(() => {
  const leaking = tenantFacing().flatMap((s) =>
    leaksIn(s.text).map((leak) => `${s.method} ${s.path} ${s.status}: ${leak}`),
  );
  expect(leaking).toEqual([]);
  expect(leaksIn(server.output())).toEqual([]);
});

const call = async (
  method: string,
  urlPath: string,
  options: { body?: unknown; token?: string; dispatcherFacing?: boolean } = {},
): Promise<Answer> => {
  const answer = await cloud.call(method, urlPath, options);
  seen.push({
    method,
    path: urlPath,
    status: answer.status,
    text: answer.text,
    dispatcherFacing: options.dispatcherFacing ?? false,
  });
  return answer;
};

const expectStatus = (answer: Answer, status: number) =>
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
const expectRefused = (answer: Answer, status: number, code: string) => {
  expectStatus(answer, status);
  expect(answer.body.error.code).toBe(code);
};

type Tenant = PayingTenant;

/** A tenant that paid for `plan`; its first Stack runs a reference Dispatcher (the host Executor or not). */
const payingTenant = (prefix: string, plan: string, localHostExecutor: boolean): Promise<Tenant> =>
  cloud.payingTenant(prefix, plan, { dispatcher: { localHostExecutor } });

const at = (stackId?: string) => (stackId ? `?stackId=${encodeURIComponent(stackId)}` : '');
const provision = (tenant: Tenant, name: string, body: unknown, stackId?: string) =>
  call('POST', `/v1/credentials/${name}${at(stackId)}`, { body, token: tenant.token });
/** Provisions (201) or rotates (200) a Credential, and checks the status. */
const provisioned = async (status: 200 | 201, ...args: Parameters<typeof provision>) =>
  expectStatus(await provision(...args), status);
const list = (tenant: Tenant, stackId?: string) =>
  call('GET', `/v1/credentials${at(stackId)}`, { token: tenant.token });
const credentialOf = async (tenant: Tenant, name: string, stackId?: string) => {
  const listed = await list(tenant, stackId);
  expectStatus(listed, 200);
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely
  return (listed.body.credentials as any[]).find((c) => c.name === name);
};
const addProject = async (tenant: Tenant, name: string) => {
  const added = await call('POST', `/v1/stacks/${tenant.stackId}/projects`, {
    body: { name, repository: `${tenant.login}/${name}` },
    token: tenant.token,
  });
  expectStatus(added, 201);
  return added.body.projectId as string;
};
const setRoutes = async (tenant: Tenant, projectId: string, routes: unknown) => {
  const set = await call('PUT', `/v1/stacks/${tenant.stackId}/projects/${projectId}/credential-routes`, {
    body: routes,
    token: tenant.token,
  });
  expectStatus(set, 200);
  return set.body;
};
/** The tenants' Dispatchers poll once: each validates what its desired state lists, and reports. */
const tick = async (...tenants: Tenant[]) => {
  const ticked = await cloud.tick(...tenants.map((t) => t.dispatcherId));
  expect(ticked).toHaveLength(tenants.length);
  for (const dispatcher of ticked) expect(dispatcher.lastError).toBeNull();
  return ticked;
};
const setAnswer = async (tenant: Tenant, name: string, outcome: 'valid' | 'invalid', reason?: string) =>
  expectStatus(
    await call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/validation-answers`, {
      body: { name, outcome, ...(reason ? { reason } : {}) },
    }),
    200,
  );
const thread = (tenant: Tenant, request: Record<string, unknown>) =>
  call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/threads`, {
    body: request,
    dispatcherFacing: true,
  });
const guideSession = (tenant: Tenant, request: Record<string, unknown>) =>
  call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/guide-sessions`, {
    body: request,
    dispatcherFacing: true,
  });
const clockNow = async () => (await call('GET', '/_local/clock')).body.now as string;

const CONSENT = { textVersion: '2026-11' };

describe('Credentials on npm start', () => {
  it('provisions every accepted kind of every Provider, ambient only with the host Executor, and refuses the other kinds', async () => {
    const admin = await payingTenant('cred-admin', 'plus', false);
    const hostTenant = await payingTenant('cred-host', 'standard', true);
    const accepted = [
      { name: 'a-oauth', provider: 'provider-a', kind: 'oauth_token', material: secret('a-oauth') },
      { name: 'a-key', provider: 'provider-a', kind: 'api_key', material: secret('a-key') },
      { name: 'b-file', provider: 'provider-b', kind: 'auth_file', material: authFile('b-file') },
      { name: 'b-key', provider: 'provider-b', kind: 'api_key', material: secret('b-key') },
      { name: 'c-key', provider: 'provider-c', kind: 'api_key', material: secret('c-key') },
    ];
    for (const entry of accepted) {
      const personal = entry.kind !== 'api_key';
      const created = await provision(admin, entry.name, {
        provider: entry.provider,
        kind: entry.kind,
        material: entry.material,
        ...(personal ? { consent: CONSENT } : {}),
      });
      expectStatus(created, 201);
      expect(created.body).toMatchObject({
        name: entry.name,
        provider: entry.provider,
        kind: entry.kind,
        usage: personal ? 'personal_subscription' : 'metered',
        validation: { state: 'pending' },
        usable: false,
        unusableReason: 'validation_pending',
        rotatedAt: null,
      });
      if (personal) expect(created.body.consent).toMatchObject({ by: admin.login, textVersion: '2026-11' });
      else expect(created.body.consent).toBeNull();
    }

    // Ambient: refused where the Dispatcher does not report the host Executor, for both Providers.
    for (const provider of ['provider-a', 'provider-b'])
      expectRefused(
        await provision(admin, `${provider}-ambient`, { provider, kind: 'ambient', consent: CONSENT }),
        409,
        'ambient_not_available',
      );
    // ...and accepted on the Stack whose Dispatcher does, storing no material.
    for (const provider of ['provider-a', 'provider-b']) {
      const created = await provision(hostTenant, `${provider}-ambient`, {
        provider,
        kind: 'ambient',
        consent: CONSENT,
      });
      expectStatus(created, 201);
      expect(created.body).toMatchObject({
        provider,
        kind: 'ambient',
        usage: 'personal_subscription',
        consent: { by: hostTenant.login, textVersion: '2026-11' },
      });
    }

    // The kinds a Provider does not accept: 400 kind_not_accepted, listing what it accepts.
    const refusedKinds = [
      { provider: 'provider-a', kind: 'auth_file', accepted: ['oauth_token', 'api_key', 'ambient'] },
      { provider: 'provider-b', kind: 'oauth_token', accepted: ['auth_file', 'api_key', 'ambient'] },
      { provider: 'provider-c', kind: 'oauth_token', accepted: ['api_key'] },
      { provider: 'provider-c', kind: 'auth_file', accepted: ['api_key'] },
      { provider: 'provider-c', kind: 'ambient', accepted: ['api_key'] },
    ];
    for (const entry of refusedKinds) {
      const refused = await provision(admin, 'refused-kind', {
        provider: entry.provider,
        kind: entry.kind,
        material: entry.kind === 'auth_file' ? authFile('refused') : secret('refused'),
        consent: CONSENT,
      });
      expectRefused(refused, 400, 'kind_not_accepted');
      expect(refused.body.accepted).toEqual(entry.accepted);
    }

    // The Dispatchers validate them (valid by default); none of the refused ones exists.
    await tick(admin, hostTenant);
    const mine = (await list(admin)).body;
    expect(mine.credentials.map((c: { name: string }) => c.name)).toEqual([
      'a-key',
      'a-oauth',
      'b-file',
      'b-key',
      'c-key',
    ]);
    for (const credential of mine.credentials)
      expect(credential).toMatchObject({
        validation: { state: 'valid' },
        usable: true,
        unusableReason: null,
      });
    const host = (await list(hostTenant)).body;
    expect(host.credentials.map((c: { name: string; kind: string }) => [c.name, c.kind])).toEqual([
      ['provider-a-ambient', 'ambient'],
      ['provider-b-ambient', 'ambient'],
    ]);
    for (const credential of host.credentials) expect(credential.usable).toBe(true);

    // An ambient Credential injects the host's own login.
    const projectId = await addProject(hostTenant, 'host-project');
    await setRoutes(hostTenant, projectId, { intake: { primary: 'provider-b-ambient' } });
    const ambient = await thread(hostTenant, { threadId: 'amb-1', projectId, activity: 'intake' });
    expectStatus(ambient, 200);
    expect(ambient.body).toMatchObject({
      credential: {
        name: 'provider-b-ambient',
        provider: 'provider-b',
        kind: 'ambient',
        position: 'primary',
      },
      model: 'b-pro',
      effort: 'medium',
      inject: { ambient: true },
    });
  });

  it('rotation keeps the Provider and may change the kind; another Provider for the name is refused', async () => {
    const admin = await payingTenant('cred-admin', 'plus', false);
    const first = secret('rot-oauth');
    await provisioned(201, admin, 'rot', {
      provider: 'provider-a',
      kind: 'oauth_token',
      material: first,
      consent: CONSENT,
    });
    await tick(admin);
    const created = await credentialOf(admin, 'rot');
    expect(created).toMatchObject({ kind: 'oauth_token', validation: { state: 'valid' }, rotatedAt: null });

    const before = await clockNow();
    const second = secret('rot-key');
    const rotated = await provision(admin, 'rot', {
      provider: 'provider-a',
      kind: 'api_key',
      material: second,
    });
    const after = await clockNow();
    expectStatus(rotated, 200);
    expect(rotated.body).toMatchObject({
      name: 'rot',
      provider: 'provider-a',
      kind: 'api_key',
      usage: 'metered',
      consent: null,
      validation: { state: 'pending' },
      createdAt: created?.createdAt,
    });
    expect(rotated.body.rotatedAt >= before && rotated.body.rotatedAt <= after).toBe(true);

    const otherProvider = await provision(admin, 'rot', {
      provider: 'provider-c',
      kind: 'api_key',
      material: secret('rot-other'),
    });
    expectRefused(otherProvider, 409, 'provider_change');
    expect(await credentialOf(admin, 'rot')).toMatchObject({ provider: 'provider-a', kind: 'api_key' });

    // The new material is what the Dispatcher validates and injects.
    await tick(admin);
    expect(await credentialOf(admin, 'rot')).toMatchObject({ validation: { state: 'valid' }, usable: true });
    const projectId = await addProject(admin, 'rot-project');
    await setRoutes(admin, projectId, { intake: { primary: 'rot' } });
    const used = await thread(admin, { threadId: 'rot-1', projectId, activity: 'intake' });
    expectStatus(used, 200);
    expect(used.body.inject).toEqual({ env: { PROVIDER_A_API_KEY: second } });
  });

  it('a Thread binds the resolved profile for good; a new Thread gets the rotated profile', async () => {
    const admin = await payingTenant('cred-admin', 'plus', false);
    const m1Material = secret('prof-1');
    await provisioned(201, admin, 'prof', {
      provider: 'provider-a',
      kind: 'api_key',
      material: m1Material,
      runtimeProfile: { dispatch: { model: 'm1', effort: 'high' } },
    });
    const projectId = await addProject(admin, 'profile-project');
    await setRoutes(admin, projectId, { dispatch: { primary: 'prof' }, intake: { primary: 'prof' } });

    // Not validated yet: no Thread.
    const pending = await thread(admin, { threadId: 't-early', projectId, activity: 'dispatch' });
    expectRefused(pending, 409, 'no_usable_credential');
    expect(pending.body.reasons).toEqual([
      { position: 'primary', name: 'prof', reason: 'validation_pending' },
    ]);

    await tick(admin);
    const first = await thread(admin, { threadId: 't-1', projectId, activity: 'dispatch' });
    expectStatus(first, 200);
    expect(first.body).toEqual({
      threadId: 't-1',
      activity: 'dispatch',
      projectId,
      credential: { name: 'prof', provider: 'provider-a', kind: 'api_key', position: 'primary' },
      model: 'm1',
      effort: 'high',
      inject: { env: { PROVIDER_A_API_KEY: m1Material } },
    });
    // No intake entry in the profile: the Provider's defaults.
    const intake = await thread(admin, { threadId: 't-intake', projectId, activity: 'intake' });
    expectStatus(intake, 200);
    expect(intake.body).toMatchObject({ activity: 'intake', model: 'a-large', effort: 'medium' });

    // Rotated with a new profile: the same Thread keeps its binding (with the current material),
    // even while the new material waits for its validation.
    const m2Material = secret('prof-2');
    await provisioned(200, admin, 'prof', {
      provider: 'provider-a',
      kind: 'api_key',
      material: m2Material,
      runtimeProfile: { dispatch: { model: 'm2', effort: 'low' } },
    });
    const again = await thread(admin, { threadId: 't-1', projectId, activity: 'dispatch', model: 'ignored' });
    expectStatus(again, 200);
    expect(again.body).toMatchObject({
      threadId: 't-1',
      model: 'm1',
      effort: 'high',
      inject: { env: { PROVIDER_A_API_KEY: m2Material } },
    });
    expectRefused(
      await thread(admin, { threadId: 't-2', projectId, activity: 'dispatch' }),
      409,
      'no_usable_credential',
    );

    await tick(admin);
    const second = await thread(admin, { threadId: 't-2', projectId, activity: 'dispatch' });
    expectStatus(second, 200);
    expect(second.body).toMatchObject({ threadId: 't-2', model: 'm2', effort: 'low' });
    const firstAgain = await thread(admin, { threadId: 't-1', projectId, activity: 'dispatch' });
    expect(firstAgain.body).toMatchObject({ threadId: 't-1', model: 'm1', effort: 'high' });
    // A value given for one Thread wins over the profile, each of model and effort on its own.
    const explicit = await thread(admin, { threadId: 't-3', projectId, activity: 'dispatch', model: 'mx' });
    expect(explicit.body).toMatchObject({ model: 'mx', effort: 'low' });
    // The same id for another activity is another Thread's: refused.
    expectRefused(
      await thread(admin, { threadId: 't-1', projectId, activity: 'intake' }),
      409,
      'thread_exists',
    );
  });

  it('the Fallback brings its own profile when the Primary fails its validation', async () => {
    const admin = await payingTenant('cred-admin', 'plus', false);
    const primaryMaterial = secret('fb-primary');
    const fallbackFile = authFile('fb-fallback');
    await provisioned(201, admin, 'fb-primary', {
      provider: 'provider-c',
      kind: 'api_key',
      material: primaryMaterial,
      runtimeProfile: { dispatch: { model: 'pc-1', effort: 'low' } },
    });
    await provisioned(201, admin, 'fb-fallback', {
      provider: 'provider-b',
      kind: 'auth_file',
      material: fallbackFile,
      consent: CONSENT,
      runtimeProfile: { dispatch: { model: 'pb-2', effort: 'high' } },
    });
    const projectId = await addProject(admin, 'fallback-project');
    await setRoutes(admin, projectId, { dispatch: { primary: 'fb-primary', fallback: 'fb-fallback' } });
    await tick(admin);

    const onPrimary = await thread(admin, { threadId: 'f-1', projectId, activity: 'dispatch' });
    expectStatus(onPrimary, 200);
    expect(onPrimary.body).toMatchObject({
      credential: { name: 'fb-primary', position: 'primary' },
      model: 'pc-1',
      effort: 'low',
      inject: { env: { PROVIDER_C_API_KEY: primaryMaterial } },
    });

    // The provider refuses the Primary's new material.
    await setAnswer(admin, 'fb-primary', 'invalid', 'revoked at the provider');
    await provisioned(200, admin, 'fb-primary', {
      provider: 'provider-c',
      kind: 'api_key',
      material: secret('fb-primary-2'),
    });
    await tick(admin);
    expect(await credentialOf(admin, 'fb-primary')).toMatchObject({
      // Our reason code and words; the Dispatcher's ("revoked at the provider") stay with operators.
      validation: {
        state: 'invalid',
        reasonCode: 'provider_refused',
        reason: expect.stringContaining('provider'),
      },
      usable: false,
      unusableReason: 'validation_failed',
      // A rotation without a profile keeps the one it had.
      runtimeProfile: { dispatch: { model: 'pc-1', effort: 'low' } },
    });

    const onFallback = await thread(admin, { threadId: 'f-2', projectId, activity: 'dispatch' });
    expectStatus(onFallback, 200);
    expect(onFallback.body).toEqual({
      threadId: 'f-2',
      activity: 'dispatch',
      projectId,
      credential: { name: 'fb-fallback', provider: 'provider-b', kind: 'auth_file', position: 'fallback' },
      model: 'pb-2',
      effort: 'high',
      inject: { authFile: fallbackFile },
    });

    // With the Fallback archived too: no Thread, each reason said.
    expectStatus(await call('POST', '/v1/credentials/fb-fallback/archive', { token: admin.token }), 200);
    const none = await thread(admin, { threadId: 'f-3', projectId, activity: 'dispatch' });
    expectRefused(none, 409, 'no_usable_credential');
    expect(none.body.reasons).toEqual([
      { position: 'primary', name: 'fb-primary', reason: 'validation_failed' },
      { position: 'fallback', name: 'fb-fallback', reason: 'archived' },
    ]);
    const archivedThread = await thread(admin, { threadId: 'f-2', projectId, activity: 'dispatch' });
    expectRefused(archivedThread, 409, 'thread_not_resumable');
    expect(archivedThread.body.reason).toBe('archived');
  });

  it('the Guide uses its selection with its guide profile; a failed validation clears it and stops Guide Sessions', async () => {
    const admin = await payingTenant('cred-admin', 'plus', false);
    const guideMaterial = secret('guide');
    await provisioned(201, admin, 'guide-cred', {
      provider: 'provider-a',
      kind: 'oauth_token',
      material: guideMaterial,
      consent: CONSENT,
      runtimeProfile: { guide: { model: 'g1', effort: 'low' } },
    });
    await tick(admin);
    const selected = await call('PUT', `/v1/stacks/${admin.stackId}/guide-credential`, {
      body: { name: 'guide-cred' },
      token: admin.token,
    });
    expectStatus(selected, 200);
    expect(selected.body).toMatchObject({ name: 'guide-cred', usable: true });

    const session = await guideSession(admin, { threadId: 'g-1' });
    expectStatus(session, 200);
    expect(session.body).toEqual({
      threadId: 'g-1',
      activity: 'guide',
      credential: { name: 'guide-cred', provider: 'provider-a', kind: 'oauth_token', position: 'guide' },
      model: 'g1',
      effort: 'low',
      inject: { env: { PROVIDER_A_OAUTH_TOKEN: guideMaterial } },
    });

    // Rotated, and the provider refuses the new token: while it waits, the selection stays.
    await setAnswer(admin, 'guide-cred', 'invalid', 'token expired');
    await provisioned(200, admin, 'guide-cred', {
      provider: 'provider-a',
      kind: 'oauth_token',
      material: secret('guide-2'),
      consent: CONSENT,
    });
    const waiting = await guideSession(admin, { threadId: 'g-2' });
    expectRefused(waiting, 409, 'guide_unavailable');
    expect(waiting.body.reason).toBe('validation_pending');
    expect((await list(admin)).body.guide).toMatchObject({ name: 'guide-cred' });

    await tick(admin);
    const cleared = (await list(admin)).body.guide;
    expect(cleared).toMatchObject({
      name: null,
      usable: false,
      cleared: { name: 'guide-cred', reason: 'validation_failed' },
    });
    const refused = await guideSession(admin, { threadId: 'g-3' });
    expectRefused(refused, 409, 'guide_unavailable');
    expect(refused.body).toMatchObject({
      reason: 'none_selected',
      cleared: { name: 'guide-cred', reason: 'validation_failed' },
    });
    // It cannot be selected again while refused.
    expectRefused(
      await call('PUT', `/v1/stacks/${admin.stackId}/guide-credential`, {
        body: { name: 'guide-cred' },
        token: admin.token,
      }),
      409,
      'credential_unusable',
    );
  });

  it('deletion is blocked by every route naming it, then confirmed with the Thread count, then done', async () => {
    const admin = await payingTenant('cred-admin', 'plus', false);
    await provisioned(201, admin, 'shared', {
      provider: 'provider-a',
      kind: 'api_key',
      material: secret('shared'),
    });
    await provisioned(201, admin, 'other', {
      provider: 'provider-c',
      kind: 'api_key',
      material: secret('other'),
    });
    const first = await addProject(admin, 'delete-one');
    const second = await addProject(admin, 'delete-two');
    await setRoutes(admin, first, {
      intake: { primary: 'shared', fallback: 'other' },
      dispatch: { primary: 'other', fallback: 'shared' },
    });
    await setRoutes(admin, second, {
      intake: { primary: 'other', fallback: 'shared' },
      dispatch: { primary: 'shared' },
    });
    await tick(admin);
    expectStatus(await thread(admin, { threadId: 'd-1', projectId: first, activity: 'intake' }), 200);
    const bound = await thread(admin, { threadId: 'd-2', projectId: second, activity: 'dispatch' });
    expect(bound.body.credential).toMatchObject({ name: 'shared', position: 'primary' });

    const blocked = await call('DELETE', '/v1/credentials/shared', { token: admin.token });
    expectRefused(blocked, 409, 'credential_in_use');
    const order = (u: { projectId: string; activity: string; position: string }) =>
      `${u.projectId}/${u.activity}/${u.position}`;
    expect([...blocked.body.uses].sort((a, b) => order(a).localeCompare(order(b)))).toEqual(
      [
        { projectId: first, activity: 'intake', position: 'primary' },
        { projectId: first, activity: 'dispatch', position: 'fallback' },
        { projectId: second, activity: 'intake', position: 'fallback' },
        { projectId: second, activity: 'dispatch', position: 'primary' },
      ].sort((a, b) => order(a).localeCompare(order(b))),
    );
    expect(await credentialOf(admin, 'shared')).toBeDefined();

    // The routes no longer name it: two Threads are bound to it, so a confirmation first.
    await setRoutes(admin, first, { intake: { primary: 'other' }, dispatch: { primary: 'other' } });
    await setRoutes(admin, second, {});
    const confirm = await call('DELETE', '/v1/credentials/shared', { token: admin.token });
    expectRefused(confirm, 409, 'confirmation_required');
    expect(confirm.body.threadCount).toBe(2);
    expect(typeof confirm.body.confirmationToken).toBe('string');
    expect(await credentialOf(admin, 'shared')).toBeDefined();

    const deleted = await call(
      'DELETE',
      `/v1/credentials/shared?confirmationToken=${encodeURIComponent(confirm.body.confirmationToken)}`,
      { token: admin.token },
    );
    expectStatus(deleted, 200);
    expect(deleted.body).toEqual({ name: 'shared', deleted: true, nonResumableThreads: 2 });
    expect(await credentialOf(admin, 'shared')).toBeUndefined();
    const gone = await thread(admin, { threadId: 'd-1', projectId: first, activity: 'intake' });
    expectRefused(gone, 409, 'thread_not_resumable');
    expect(gone.body.reason).toBe('credential_deleted');
  });

  it("isolation: another tenant, a member and another Stack's Dispatcher change or read nothing of this Stack", async () => {
    // A tenant with a usable Credential on its first Stack, and another with an ambient one.
    const admin = await payingTenant('cred-admin', 'plus', false);
    const hostTenant = await payingTenant('cred-host', 'standard', true);
    await provisioned(201, admin, 'a-key', {
      provider: 'provider-a',
      kind: 'api_key',
      material: secret('a-key'),
    });
    await provisioned(201, hostTenant, 'provider-a-ambient', {
      provider: 'provider-a',
      kind: 'ambient',
      consent: CONSENT,
    });
    await tick(admin, hostTenant);
    // The tenant's second Stack, with a Credential of its own.
    const added = await call('POST', '/v1/stacks', { body: { plan: 'standard' }, token: admin.token });
    expectStatus(added, 201);
    const secondStack = added.body.stackId as string;
    expect(secondStack).not.toBe(admin.stackId);
    await provisioned(
      201,
      admin,
      'iso',
      { provider: 'provider-c', kind: 'api_key', material: secret('iso') },
      secondStack,
    );
    const adminBefore = [(await list(admin)).body, (await list(admin, secondStack)).body];
    const otherBefore = (await list(hostTenant)).body;

    // Another tenant aiming at that Stack id: 404 for every route, nothing written anywhere.
    const aimed = [
      await provision(
        hostTenant,
        'iso',
        { provider: 'provider-c', kind: 'api_key', material: secret('aimed') },
        secondStack,
      ),
      await provision(
        hostTenant,
        'intruder',
        { provider: 'provider-a', kind: 'api_key', material: secret('aimed-new') },
        secondStack,
      ),
      await list(hostTenant, secondStack),
      await call('POST', `/v1/credentials/iso/archive${at(secondStack)}`, { token: hostTenant.token }),
      await call('DELETE', `/v1/credentials/iso${at(secondStack)}`, { token: hostTenant.token }),
      await call('PUT', `/v1/stacks/${secondStack}/guide-credential`, {
        body: { name: 'iso' },
        token: hostTenant.token,
      }),
      await call('PUT', `/v1/stacks/${secondStack}/projects/prj_anything/credential-routes`, {
        body: { intake: { primary: 'iso' } },
        token: hostTenant.token,
      }),
    ];
    for (const answer of aimed) expectRefused(answer, 404, 'stack_not_found');

    // A member reads, and every write is 403.
    const memberLogin = uniqueLogin('cred-member');
    expectStatus(
      await call('POST', '/_local/members', { body: { login: memberLogin }, token: admin.token }),
      201,
    );
    const member = await cloud.signIn(memberLogin);
    expect(member).toMatchObject({ tenantId: admin.tenantId, role: 'member' });
    const asMember = (method: string, urlPath: string, body?: unknown) =>
      call(method, urlPath, { token: member.sessionToken, ...(body === undefined ? {} : { body }) });
    const read = await asMember('GET', '/v1/credentials');
    expectStatus(read, 200);
    expect(read.body).toEqual(adminBefore[0]);
    const writes = [
      await asMember('POST', '/v1/credentials/member-new', {
        provider: 'provider-a',
        kind: 'api_key',
        material: secret('member-new'),
      }),
      await asMember('POST', '/v1/credentials/a-key', {
        provider: 'provider-a',
        kind: 'api_key',
        material: secret('member-rotate'),
      }),
      await asMember('POST', `/v1/credentials/iso${at(secondStack)}`, {
        provider: 'provider-c',
        kind: 'api_key',
        material: secret('member-rotate-2'),
      }),
      await asMember('POST', '/v1/credentials/a-key/archive'),
      await asMember('DELETE', '/v1/credentials/a-key'),
      await asMember('PUT', `/v1/stacks/${admin.stackId}/guide-credential`, { name: 'a-key' }),
      await asMember('PUT', `/v1/stacks/${admin.stackId}/guide-credential`, { name: null }),
      await asMember('PUT', `/v1/stacks/${admin.stackId}/projects/prj_anything/credential-routes`, {
        intake: { primary: 'a-key' },
      }),
    ];
    for (const answer of writes) expectRefused(answer, 403, 'admin_required');

    // Another Stack's Dispatcher: this Stack's names are not found, nothing is recorded.
    const asOtherDispatcher = (method: string, urlPath: string, body?: unknown) =>
      call(method, urlPath, {
        token: hostTenant.dispatcherCredential,
        dispatcherFacing: true,
        ...(body === undefined ? {} : { body }),
      });
    expectRefused(
      await asOtherDispatcher('GET', '/v1/dispatcher/credentials/a-key'),
      404,
      'credential_not_found',
    );
    expectRefused(
      await asOtherDispatcher('POST', '/v1/dispatcher/credentials/a-key/validation', {
        version: 1,
        outcome: 'invalid',
        reason: 'not mine',
      }),
      404,
      'credential_not_found',
    );
    // Its own Stack's names it reads (the check above is not a broken route).
    const own = await asOtherDispatcher('GET', '/v1/dispatcher/credentials/provider-a-ambient');
    expectStatus(own, 200);
    expect(own.body).toMatchObject({ name: 'provider-a-ambient', inject: { ambient: true } });

    // Nothing changed: this tenant's two Stacks, and the other tenant's own Stack.
    expect([(await list(admin)).body, (await list(admin, secondStack)).body]).toEqual(adminBefore);
    expect((await list(hostTenant)).body).toEqual(otherBefore);
    expect(await credentialOf(admin, 'a-key')).toMatchObject({
      validation: { state: 'valid' },
      usable: true,
    });
  });

  it('no secret in any answer to the tenant, nor in any line the server wrote, nor on disk', async () => {
    // A Credential through its life: provisioned, validated, used by a Thread and the Guide,
    // rotated, archived, deleted; every list read along the way.
    const admin = await payingTenant('cred-admin', 'plus', false);
    const own = secrets.length;
    const file = authFile('life');
    await provisioned(201, admin, 'life', {
      provider: 'provider-b',
      kind: 'auth_file',
      material: file,
      consent: CONSENT,
      runtimeProfile: { guide: { model: 'g1', effort: 'low' } },
    });
    await tick(admin);
    const projectId = await addProject(admin, 'life-project');
    await setRoutes(admin, projectId, { intake: { primary: 'life' } });
    expectStatus(await thread(admin, { threadId: 'life-1', projectId, activity: 'intake' }), 200);
    expectStatus(
      await call('PUT', `/v1/stacks/${admin.stackId}/guide-credential`, {
        body: { name: 'life' },
        token: admin.token,
      }),
      200,
    );
    expectStatus(await guideSession(admin, { threadId: 'life-guide' }), 200);
    expectStatus(
      await call('GET', '/v1/dispatcher/credentials/life', {
        token: admin.dispatcherCredential,
        dispatcherFacing: true,
      }),
      200,
    );
    await provisioned(200, admin, 'life', {
      provider: 'provider-b',
      kind: 'api_key',
      material: secret('life-rotated'),
    });
    await tick(admin);
    expectStatus(await list(admin), 200);
    await setRoutes(admin, projectId, {});
    expectStatus(await call('POST', '/v1/credentials/life/archive', { token: admin.token }), 200);
    const confirm = await call('DELETE', '/v1/credentials/life', { token: admin.token });
    const deleted = await call(
      'DELETE',
      `/v1/credentials/life?confirmationToken=${encodeURIComponent(confirm.body.confirmationToken ?? '')}`,
      { token: admin.token },
    );
    expect([confirm.status, deleted.status]).toEqual([409, 200]);
    expectStatus(await list(admin), 200);

    // The checks can fail: the answers to the Dispatcher carry material (and are excluded only
    // when they succeed), and the log holds a line for each request to these routes.
    expect(secrets.length - own).toBeGreaterThanOrEqual(3);
    const toDispatchers = seen.filter((s) => s.dispatcherFacing && s.status < 300).map((s) => s.text);
    expect(leaksIn(toDispatchers.join('\n')).length).toBeGreaterThanOrEqual(2);
    expect(tenantFacing().length).toBeGreaterThan(10);
    const log = server.output();
    expect(log).toContain('"route":"POST /v1/credentials/{name}"');
    expect(log).toContain('"route":"POST /v1/dispatcher/threads"');
    expect(log).toContain('"route":"GET /v1/dispatcher/credentials/{name}"');
    // (No secret in the answers to the tenant nor in the log: checked after every test.)

    // Nor in anything `npm start` keeps on disk (the table holds only sealed material): every
    // secret of this file's tests that ran.
    const files = (directory: string): string[] =>
      readdirSync(directory).flatMap((entry) => {
        const full = path.join(directory, entry);
        const stat = statSync(full);
        return stat.isDirectory() ? files(full) : stat.isFile() ? [full] : [];
      });
    const onDisk = files(server.dataDirectory).flatMap((file) =>
      leaksIn(readFileSync(file).toString('latin1')).map((leak) => `${file}: ${leak}`),
    );
    expect(onDisk).toEqual([]);
  });
});
