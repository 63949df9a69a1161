import { describe, expect, it } from 'vitest';
import type { CredentialKind, Provider, RuntimeProfile } from '#core/credentials.ts';
import { sealSecret } from '#ports/secrets-vault.ts';
import {
  clearGuide,
  credentialPutWrite,
  deleteCredential,
  desiredStateBumpWrite,
  getCredential,
  getGuideSelection,
  getThread,
  type StoredCredential,
  selectGuide,
  updateCredential,
} from '#store/credentials.ts';
import { setCredentialRoutes } from '#store/projects.ts';
import { getTenant } from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal, TEST_CARDS } from '../support/hosted-pages.ts';
import { expectRefusedAnswer } from '../support/refusals.ts';

/**
 * Credentials on the Dispatcher's side (docs/credentials.md): the reference Dispatcher validates
 * what the desired state lists; Threads take their Project's route, bind model and effort for good
 * and get what to inject; Guide Sessions use the Guide selection only. Credentials are written
 * through the store here (sealed as provisioning seals them); everything else goes over HTTP.
 */

const { api } = gatewayForFile({ processor: true });

const DAY = 86_400;

interface Setup {
  tenantId: string;
  sessionToken: string;
  /** The administrator's login (to sign in again once the session has expired). */
  login?: string | undefined;
  stackId: string;
  /** The Stack's Dispatcher credential (scd_…). */
  credential: string;
  dispatcherId: string;
}

const dispatcherFor = async (
  tenant: { tenantId: string; sessionToken: string; login?: string },
  stackId: string,
): Promise<Setup> => {
  const issued = await api.call('POST', `/v1/stacks/${stackId}/dispatcher-credential`, {
    token: tenant.sessionToken,
  });
  expect(issued.status).toBe(201);
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential },
  });
  expect(started.status).toBe(201);
  return {
    tenantId: tenant.tenantId,
    sessionToken: tenant.sessionToken,
    login: tenant.login,
    stackId,
    credential: issued.json.credential,
    dispatcherId: started.json.dispatcherId,
  };
};

const stackWithDispatcher = async (card?: string): Promise<Setup> =>
  dispatcherFor(await api.subscribe({ plan: 'plus', ...(card ? { card } : {}) }), 'primary');

/** Provisions (or rotates) a Credential as the tenant route does: sealed material, the desired state bumped. */
const putCredential = async (
  setup: Setup,
  credential: {
    name: string;
    provider: Provider;
    kind: CredentialKind;
    material?: string;
    profile?: RuntimeProfile;
  },
): Promise<StoredCredential> => {
  const { tenantId, stackId } = setup;
  const existing = await getCredential(tenantId, stackId, credential.name);
  const sealed =
    credential.material === undefined
      ? undefined
      : await sealSecret(credential.material, { tenantId, stackId, credential: credential.name });
  const now = api.clock.now().toISOString();
  const stored: StoredCredential = {
    stackId,
    name: credential.name,
    provider: credential.provider,
    kind: credential.kind,
    profile: credential.profile ?? existing?.profile ?? {},
    consent:
      credential.kind === 'api_key' ? null : { userId: 'u', login: 'admin', at: now, textVersion: '1' },
    ...(sealed ? { sealed } : {}),
    materialVersion: (existing?.materialVersion ?? 0) + 1,
    validation: { state: 'pending' },
    createdAt: existing?.createdAt ?? now,
    version: (existing?.version ?? 0) + 1,
  };
  expect(
    await applyStackWrites([
      credentialPutWrite(tenantId, stored, existing?.version),
      desiredStateBumpWrite(tenantId, stackId),
    ]),
  ).toBe(true);
  return stored;
};
/** An api_key Credential of `provider` with `material` (and a profile), stored as provisioning does. */
const apiKey = (setup: Setup, name: string, provider: Provider, material: string, profile?: RuntimeProfile) =>
  putCredential(setup, { name, provider, kind: 'api_key', material, ...(profile ? { profile } : {}) });

const stored = async (setup: Setup, name: string) => {
  const found = await getCredential(setup.tenantId, setup.stackId, name);
  if (!found) throw new Error(`no Credential ${name}`);
  return found;
};

const addProject = async (setup: Setup, routes: Parameters<typeof setCredentialRoutes>[3]) => {
  const added = await api.call('POST', `/v1/stacks/${setup.stackId}/projects`, {
    token: setup.sessionToken,
    body: { name: 'app', repository: 'acme/app' },
  });
  expect(added.status).toBe(201);
  const projectId = added.json.projectId as string;
  expect(await setCredentialRoutes(setup.tenantId, setup.stackId, projectId, routes)).toBe(true);
  return projectId;
};

const tick = () => api.call('POST', '/_local/fleet/tick');
const answerValidation = (setup: Setup, name: string, outcome: 'valid' | 'invalid', reason?: string) =>
  api.call('POST', `/_local/fleet/dispatchers/${setup.dispatcherId}/validation-answers`, {
    body: { name, outcome, ...(reason ? { reason } : {}) },
  });
const asDispatcher = (setup: Setup, method: string, path: string, body?: unknown) =>
  api.call(method, path, { token: setup.credential, ...(body === undefined ? {} : { body }) });
const thread = (setup: Setup, body: Record<string, unknown>) =>
  api.call('POST', `/_local/fleet/dispatchers/${setup.dispatcherId}/threads`, { body });
const guideSession = (setup: Setup, body: Record<string, unknown>) =>
  api.call('POST', `/_local/fleet/dispatchers/${setup.dispatcherId}/guide-sessions`, { body });

/**
 * A Guide session for `threadId` refused because the selected Credential `name` cannot be used
 * for `reason`: 409 guide_unavailable in our words, and the selection cleared as the body says.
 */
const guideCleared = async (setup: Setup, threadId: string, name: string, reason: string) => {
  const refused = await guideSession(setup, { threadId });
  expectRefusedAnswer(
    refused,
    409,
    {
      code: 'guide_unavailable',
      message: `The Guide Credential "${name}" cannot be used (${reason}); the selection is cleared: an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential.`,
    },
    { reason, credential: name, cleared: { name, reason, at: expect.any(String) } },
  );
  expect(await getGuideSelection(setup.tenantId, setup.stackId)).toEqual({ cleared: refused.json.cleared });
};

/** The Guide selection as the Dashboard reads it (GET /v1/credentials), signed in afresh. */
const dashboardGuide = async (setup: Setup) => {
  if (!setup.login) throw new Error('no login to sign in with');
  const listed = await api.call('GET', `/v1/credentials?stackId=${setup.stackId}`, {
    token: (await api.signIn(setup.login)).sessionToken,
  });
  expect(listed.status).toBe(200);
  return listed.json.guide;
};

describe('validation through the reference Dispatcher', () => {
  it('the desired state lists pending Credentials; valid by default, invalid with the chosen reason, which clears the Guide selection naming it', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'alpha', 'provider-a', 'sk-alpha-1');
    await apiKey(setup, 'beta', 'provider-c', 'sk-beta-1');
    await selectGuide(setup.tenantId, setup.stackId, 'beta', api.clock.now());
    const desired = await asDispatcher(setup, 'GET', '/v1/dispatcher/desired-state');
    expect(desired.json.credentials).toEqual([
      { name: 'alpha', version: 1 },
      { name: 'beta', version: 1 },
    ]);

    const answered = await answerValidation(setup, 'beta', 'invalid', 'the provider says: key revoked');
    expect(answered.status).toBe(200);
    api.clock.advance(60);
    const before = api.clock.now().getTime();
    await tick();
    const after = api.clock.now().getTime();
    const alpha = (await stored(setup, 'alpha')).validation;
    expect(alpha).toEqual({ state: 'valid', checkedAt: expect.any(String) });
    // Checked on the control plane's clock, during this tick.
    expect(Date.parse(alpha.checkedAt ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(alpha.checkedAt ?? '')).toBeLessThanOrEqual(after);
    const beta = (await stored(setup, 'beta')).validation;
    // Our reason code for the tenant; the Dispatcher's words kept for operators only.
    expect(beta).toEqual({
      state: 'invalid',
      reasonCode: 'provider_refused',
      dispatcherReason: 'the provider says: key revoked',
      checkedAt: expect.any(String),
    });
    expect(await getGuideSelection(setup.tenantId, setup.stackId)).toEqual({
      cleared: { name: 'beta', reason: 'validation_failed', at: beta.checkedAt },
    });
    // The simulator reported both and kept no material.
    const status = (await api.call('GET', '/_local/fleet')).json.dispatchers.find(
      (d: { dispatcherId: string }) => d.dispatcherId === setup.dispatcherId,
    );
    expect(status.validations).toEqual([
      { name: 'alpha', version: 1, outcome: 'valid', status: 200 },
      { name: 'beta', version: 1, outcome: 'invalid', reason: 'the provider says: key revoked', status: 200 },
    ]);
    expect(JSON.stringify(status)).not.toContain('sk-alpha-1');
    expect(JSON.stringify(status)).not.toContain('sk-beta-1');
    // Nothing waits any more.
    expect((await asDispatcher(setup, 'GET', '/v1/dispatcher/desired-state')).json).not.toHaveProperty(
      'credentials',
    );

    // A rotation lists the new version; the answer for beta is sticky, alpha is valid again.
    await apiKey(setup, 'alpha', 'provider-a', 'sk-alpha-2');
    await apiKey(setup, 'beta', 'provider-c', 'sk-beta-2');
    expect((await asDispatcher(setup, 'GET', '/v1/dispatcher/desired-state')).json.credentials).toEqual([
      { name: 'alpha', version: 2 },
      { name: 'beta', version: 2 },
    ]);
    await tick();
    expect((await stored(setup, 'alpha')).validation.state).toBe('valid');
    expect((await stored(setup, 'beta')).validation.state).toBe('invalid');
    await answerValidation(setup, 'beta', 'valid');
    await apiKey(setup, 'beta', 'provider-c', 'sk-beta-3');
    await tick();
    expect(await stored(setup, 'beta')).toMatchObject({ materialVersion: 3, validation: { state: 'valid' } });
  });

  it('a verdict on an older version is refused (a rotation came first) and records nothing; bad bodies are 400', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'key', 'provider-a', 'sk-1');
    const read = await asDispatcher(setup, 'GET', '/v1/dispatcher/credentials/key');
    expect(read.json.version).toBe(1);
    await apiKey(setup, 'key', 'provider-a', 'sk-2');
    /** The Dispatcher's verdict on Credential "key", as it posts it. */
    const verdict = (body: Record<string, unknown>) =>
      asDispatcher(setup, 'POST', '/v1/dispatcher/credentials/key/validation', body);

    const stale = await verdict({ version: 1, outcome: 'valid' });
    expectRefusedAnswer(
      stale,
      409,
      {
        code: 'stale_version',
        message:
          "Version 1 is not the Credential's current material (version 2): it was rotated; read it again and validate the new one.",
      },
      { currentVersion: 2 },
    );
    expect((await stored(setup, 'key')).validation).toEqual({ state: 'pending' });

    for (const body of [
      { version: 2, outcome: 'maybe' },
      { version: 0, outcome: 'valid' },
      { version: 2.5, outcome: 'valid' },
      { version: 2, outcome: 'invalid', reason: 'x'.repeat(501) },
      { version: 2, outcome: 'valid', extra: true },
    ]) {
      const bad = await verdict(body);
      expect(bad.status).toBe(400);
    }
    expect((await stored(setup, 'key')).validation).toEqual({ state: 'pending' });
    const unknown = await asDispatcher(setup, 'POST', '/v1/dispatcher/credentials/nope/validation', {
      version: 1,
      outcome: 'valid',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({
      code: 'credential_not_found',
      message:
        'This Stack has no Credential "nope": the desired state\'s "credentials" lists those to validate.',
    });

    const current = await verdict({ version: 2, outcome: 'invalid', reason: 'quota exhausted' });
    expect(current.status).toBe(200);
    expect((await stored(setup, 'key')).validation).toMatchObject({
      state: 'invalid',
      reasonCode: 'provider_refused',
      dispatcherReason: 'quota exhausted',
    });
    // A valid verdict keeps none of the Dispatcher's words, even when it sends some.
    const valid = await verdict({ version: 2, outcome: 'valid', reason: 'looked fine' });
    expect(valid.status).toBe(200);
    expect((await stored(setup, 'key')).validation).toEqual({
      state: 'valid',
      checkedAt: expect.any(String),
    });
  });

  it("the material reaches only its own Stack's Dispatcher", async () => {
    const first = await stackWithDispatcher();
    await putCredential(first, { name: 'key', provider: 'provider-a', kind: 'api_key', material: 'sk-own' });
    const projectId = await addProject(first, { intake: { primary: 'key' } });
    const added = await api.addStack(first, 'standard');
    const second = await dispatcherFor(first, added.json.stackId);

    const own = await asDispatcher(first, 'GET', '/v1/dispatcher/credentials/key');
    expect(own.status).toBe(200);
    expect(own.json).toEqual({
      name: 'key',
      provider: 'provider-a',
      kind: 'api_key',
      version: 1,
      inject: { env: { PROVIDER_A_API_KEY: 'sk-own' } },
    });
    const other = await asDispatcher(second, 'GET', '/v1/dispatcher/credentials/key');
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe('credential_not_found');
    expect(JSON.stringify(other.json)).not.toContain('sk-own');
    // Nor through a Thread: the other Stack does not have the Project.
    const otherThread = await thread(second, { threadId: 't-1', projectId, activity: 'intake' });
    expect(otherThread.status).toBe(404);
    expect(otherThread.json.error.code).toBe('project_not_found');
    // Nor with a tenant session.
    const bySession = await api.call('GET', '/v1/dispatcher/credentials/key', { token: first.sessionToken });
    expect(bySession.status).toBe(401);
  });

  it('what each Provider and kind injects', async () => {
    const setup = await dispatcherFor(await api.subscribe({ plan: 'plus' }), 'primary');
    const authFile = JSON.stringify({ refresh_token: 'rt-b', account: 'me' });
    const cases: [Provider, CredentialKind, string | undefined, unknown][] = [
      ['provider-a', 'oauth_token', 'oat-a', { env: { PROVIDER_A_OAUTH_TOKEN: 'oat-a' } }],
      ['provider-a', 'api_key', 'sk-a', { env: { PROVIDER_A_API_KEY: 'sk-a' } }],
      ['provider-a', 'ambient', undefined, { ambient: true }],
      ['provider-b', 'auth_file', authFile, { authFile }],
      ['provider-b', 'api_key', 'sk-b', { authFile: '{"api_key":"sk-b"}' }],
      ['provider-b', 'ambient', undefined, { ambient: true }],
      ['provider-c', 'api_key', 'sk-c', { env: { PROVIDER_C_API_KEY: 'sk-c' } }],
    ];
    for (const [provider, kind, material, inject] of cases) {
      const name = `${provider}-${kind.replace('_', '-')}`;
      await putCredential(setup, { name, provider, kind, ...(material ? { material } : {}) });
      const read = await asDispatcher(setup, 'GET', `/v1/dispatcher/credentials/${name}`);
      expect(read.json, name).toEqual({ name, provider, kind, version: 1, inject });
    }
    await tick();
    // A Thread gets the same injection.
    const projectId = await addProject(setup, { dispatch: { primary: 'provider-b-api-key' } });
    const created = await thread(setup, { threadId: 'inject-b', projectId, activity: 'dispatch' });
    expect(created.json.inject).toEqual({ authFile: '{"api_key":"sk-b"}' });
  });
});

describe('Threads', () => {
  it('bind the resolved profile (explicit > Credential > Provider default, per field) for good', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'main', 'provider-a', 'sk-main', { intake: { model: 'a-small' } });
    const projectId = await addProject(setup, { intake: { primary: 'main' }, dispatch: { primary: 'main' } });
    await tick();

    const first = await thread(setup, { threadId: 't1', projectId, activity: 'intake' });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      threadId: 't1',
      activity: 'intake',
      projectId,
      credential: { name: 'main', provider: 'provider-a', kind: 'api_key', position: 'primary' },
      model: 'a-small',
      effort: 'medium',
      inject: { env: { PROVIDER_A_API_KEY: 'sk-main' } },
    });
    const threadOf = (threadId: string, activity: string, more: Record<string, string>) =>
      thread(setup, { threadId, projectId, activity, ...more });
    const explicitEffort = await threadOf('t2', 'intake', { effort: 'high' });
    expect(explicitEffort.json).toMatchObject({ model: 'a-small', effort: 'high' });
    const explicitModel = await threadOf('t3', 'dispatch', { model: 'a-custom' });
    expect(explicitModel.json).toMatchObject({ model: 'a-custom', effort: 'medium' });
    expect(await getThread(setup.tenantId, setup.stackId, 't1')).toMatchObject({
      credentialName: 'main',
      position: 'primary',
      model: 'a-small',
      effort: 'medium',
    });

    // The profile changes: the bound Threads keep theirs, a new one takes the new one.
    expect(
      await updateCredential(setup.tenantId, await stored(setup, 'main'), {
        profile: { intake: { model: 'a-other', effort: 'low' } },
      }),
    ).toBe(true);
    const again = await thread(setup, { threadId: 't1', projectId, activity: 'intake', effort: 'high' });
    expect(again.json).toMatchObject({ threadId: 't1', model: 'a-small', effort: 'medium' });
    const fresh = await thread(setup, { threadId: 't4', projectId, activity: 'intake' });
    expect(fresh.json).toMatchObject({ model: 'a-other', effort: 'low' });
    // Two requests for one new thread id at once: the first binding wins, both answer it.
    const [one, two] = await Promise.all([
      thread(setup, { threadId: 'race', projectId, activity: 'intake', effort: 'low' }),
      thread(setup, { threadId: 'race', projectId, activity: 'intake', effort: 'high' }),
    ]);
    const bound = await getThread(setup.tenantId, setup.stackId, 'race');
    expect([one.json.effort, two.json.effort]).toEqual([bound?.effort, bound?.effort]);
    // A thread id is one Thread: another Project or activity does not rebind it.
    const reused = await thread(setup, { threadId: 't1', projectId, activity: 'dispatch' });
    expect(reused.status).toBe(409);
    expect(reused.json.error).toMatchObject({
      code: 'thread_exists',
      message: `Thread "t1" is already bound to Project "${projectId}" for intake: use a new thread id.`,
    });
    const elsewhere = await thread(setup, { threadId: 't1', projectId: 'prj_elsewhere', activity: 'intake' });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.json.error.code).toBe('thread_exists');
    expect(await getThread(setup.tenantId, setup.stackId, 't1')).toMatchObject({
      projectId,
      activity: 'intake',
    });
  });

  it('the Fallback when the Primary is unusable, with its own profile', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'first', 'provider-a', 'sk-first', { intake: { model: 'a-first', effort: 'low' } });
    await apiKey(setup, 'second', 'provider-c', 'sk-second', { intake: { effort: 'high' } });
    await answerValidation(setup, 'first', 'invalid', 'revoked');
    await tick();
    const projectId = await addProject(setup, { intake: { primary: 'first', fallback: 'second' } });
    const created = await thread(setup, { threadId: 'fb', projectId, activity: 'intake' });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      credential: { name: 'second', provider: 'provider-c', kind: 'api_key', position: 'fallback' },
      model: 'c-auto',
      effort: 'high',
      inject: { env: { PROVIDER_C_API_KEY: 'sk-second' } },
    });
    expect(await getThread(setup.tenantId, setup.stackId, 'fb')).toMatchObject({
      credentialName: 'second',
      position: 'fallback',
    });
  });

  it('none usable: 409 with the reason per position, and nothing bound; no route, no Project', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'later', 'provider-a', 'sk-l');
    await apiKey(setup, 'old', 'provider-c', 'sk-o');
    const old = await stored(setup, 'old');
    expect(await updateCredential(setup.tenantId, old, { archivedAt: api.clock.now().toISOString() })).toBe(
      true,
    );
    const projectId = await addProject(setup, {
      intake: { primary: 'later', fallback: 'old' },
      dispatch: { primary: 'ghost' },
    });

    const refused = await thread(setup, { threadId: 'nu', projectId, activity: 'intake' });
    expectRefusedAnswer(
      refused,
      409,
      {
        code: 'no_usable_credential',
        message: `No Credential of Project "${projectId}"'s intake route is usable now: primary "later": validation_pending; fallback "old": archived.`,
      },
      {
        activity: 'intake',
        reasons: [
          { position: 'primary', name: 'later', reason: 'validation_pending' },
          { position: 'fallback', name: 'old', reason: 'archived' },
        ],
      },
    );
    expect(await getThread(setup.tenantId, setup.stackId, 'nu')).toBeUndefined();
    const missing = await thread(setup, { threadId: 'nu', projectId, activity: 'dispatch' });
    expect(missing.json.reasons).toEqual([{ position: 'primary', name: 'ghost', reason: 'missing' }]);

    await setCredentialRoutes(setup.tenantId, setup.stackId, projectId, { intake: { primary: 'later' } });
    const noRoute = await thread(setup, { threadId: 'nr', projectId, activity: 'dispatch' });
    expectRefusedAnswer(
      noRoute,
      409,
      {
        code: 'no_credential_route',
        message: `Project "${projectId}" has no Credential Route for dispatch: an administrator sets one with PUT /v1/stacks/{stackId}/projects/{projectId}/credential-routes.`,
      },
      { activity: 'dispatch' },
    );
    const noProject = await thread(setup, { threadId: 'np', projectId: 'prj_nothere', activity: 'intake' });
    expect(noProject.status).toBe(404);
    expect(noProject.json.error).toMatchObject({
      code: 'project_not_found',
      message: `This Stack has no Project "prj_nothere": GET /v1/stacks/${setup.stackId}/projects lists them.`,
    });
  });

  it('a deleted or archived Credential makes its Thread non-resumable', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'gone', 'provider-a', 'sk-g');
    await apiKey(setup, 'shelf', 'provider-c', 'sk-s');
    const projectId = await addProject(setup, {
      dispatch: { primary: 'gone' },
      intake: { primary: 'shelf' },
    });
    await tick();
    expect((await thread(setup, { threadId: 'dt', projectId, activity: 'dispatch' })).status).toBe(200);
    expect((await thread(setup, { threadId: 'at', projectId, activity: 'intake' })).status).toBe(200);
    expect(await deleteCredential(setup.tenantId, await stored(setup, 'gone'))).toBe(true);
    const resumed = await thread(setup, { threadId: 'dt', projectId, activity: 'dispatch' });
    expectRefusedAnswer(
      resumed,
      409,
      {
        code: 'thread_not_resumable',
        message: 'Thread "dt" is bound to Credential "gone", which was deleted: start a new Thread.',
      },
      { reason: 'credential_deleted', credential: 'gone' },
    );
    expect(
      await updateCredential(setup.tenantId, await stored(setup, 'shelf'), {
        archivedAt: api.clock.now().toISOString(),
      }),
    ).toBe(true);
    const archived = await thread(setup, { threadId: 'at', projectId, activity: 'intake' });
    expectRefusedAnswer(
      archived,
      409,
      {
        code: 'thread_not_resumable',
        message: 'Thread "at" is bound to Credential "shelf", which is archived: start a new Thread.',
      },
      { reason: 'archived', credential: 'shelf' },
    );
  });

  it('strict bodies: 400 before anything is read or bound', async () => {
    const setup = await stackWithDispatcher();
    for (const body of [
      { threadId: 'bad id', projectId: 'prj_x', activity: 'intake' },
      { threadId: 'x'.repeat(65), projectId: 'prj_x', activity: 'intake' },
      { threadId: 'ok', projectId: 'prj_x', activity: 'guide' },
      { threadId: 'ok', projectId: 'prj_x', activity: 'intake', model: 'm'.repeat(101) },
      { threadId: 'ok', projectId: 'prj_x', activity: 'intake', effort: 'max' },
      { threadId: 'ok', projectId: 'prj_x', activity: 'intake', extra: 1 },
    ]) {
      expect((await asDispatcher(setup, 'POST', '/v1/dispatcher/threads', body)).status).toBe(400);
      // The local route validates the same way.
      expect((await thread(setup, body)).status).toBe(400);
    }
    expect(
      (await asDispatcher(setup, 'POST', '/v1/dispatcher/guide-sessions', { threadId: 'g', projectId: 'p' }))
        .status,
    ).toBe(400);
    expect(await getThread(setup.tenantId, setup.stackId, 'ok')).toBeUndefined();
    // The simulator's validation answers are checked like its other routes.
    const answers = `/_local/fleet/dispatchers/${setup.dispatcherId}/validation-answers`;
    for (const body of [
      { name: 'Key', outcome: 'valid' },
      { name: 'key', outcome: 'valid', reason: 'no reason for a valid one' },
      { name: 'key', outcome: 'unsure' },
    ])
      expect((await api.call('POST', answers, { body })).status).toBe(400);
    const unknown = await api.call('POST', '/_local/fleet/dispatchers/dsp-99999/validation-answers', {
      body: { name: 'key', outcome: 'valid' },
    });
    expect(unknown.status).toBe(404);
    const set = await api.call('POST', answers, { body: { name: 'key', outcome: 'invalid', reason: 'r' } });
    expect(set.json.validationAnswers).toEqual({ key: { outcome: 'invalid', reason: 'r' } });
  });
});

describe('Guide Sessions', () => {
  it('use the Guide selection only, with its guide profile', async () => {
    const setup = await stackWithDispatcher();
    const none = await guideSession(setup, { threadId: 'g0' });
    expectRefusedAnswer(
      none,
      409,
      {
        code: 'guide_unavailable',
        message:
          'This Stack has no Guide Credential selected: an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential.',
      },
      { reason: 'none_selected' },
    );
    expect(none.json).not.toHaveProperty('cleared');

    const authFile = JSON.stringify({ session: 'guide-file' });
    await putCredential(setup, {
      name: 'guide',
      provider: 'provider-b',
      kind: 'auth_file',
      material: authFile,
      profile: { guide: { model: 'b-guide' }, intake: { model: 'b-intake', effort: 'high' } },
    });
    await apiKey(setup, 'other', 'provider-a', 'sk-x');
    await tick();
    // Valid Credentials exist, none is selected: still none.
    expect((await guideSession(setup, { threadId: 'g0' })).json.reason).toBe('none_selected');

    await selectGuide(setup.tenantId, setup.stackId, 'guide', api.clock.now());
    const started = await guideSession(setup, { threadId: 'g1' });
    expect(started.status).toBe(200);
    expect(started.json).toEqual({
      threadId: 'g1',
      activity: 'guide',
      credential: { name: 'guide', provider: 'provider-b', kind: 'auth_file', position: 'guide' },
      model: 'b-guide',
      effort: 'medium',
      inject: { authFile },
    });
    expect(await getThread(setup.tenantId, setup.stackId, 'g1')).toMatchObject({
      activity: 'guide',
      position: 'guide',
      credentialName: 'guide',
    });
    const explicit = await guideSession(setup, { threadId: 'g2', effort: 'low', model: 'b-mini' });
    expect(explicit.json).toMatchObject({ model: 'b-mini', effort: 'low' });

    // A Guide thread id is one Thread: a Project's route does not rebind it.
    const asProject = await thread(setup, { threadId: 'g1', projectId: 'prj_any', activity: 'intake' });
    expect(asProject.status).toBe(409);
    expect(asProject.json.error).toMatchObject({
      code: 'thread_exists',
      message: 'Thread "g1" is already bound to the Guide: use a new thread id.',
    });
    // Bound for good: with the selection cleared since, the same thread id answers its binding.
    await clearGuide(setup.tenantId, setup.stackId, 'guide', 'cleared_by_administrator', api.clock.now());
    const resumed = await guideSession(setup, { threadId: 'g1' });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    expect(resumed.json).toEqual(started.json);
  });

  it('an invalid or archived selection is cleared with its reason and refused, never replaced by another Credential', async () => {
    const setup = await stackWithDispatcher();
    await apiKey(setup, 'bad', 'provider-a', 'sk-bad');
    await apiKey(setup, 'fine', 'provider-a', 'sk-fine');
    await apiKey(setup, 'shelved', 'provider-c', 'sk-s');
    await answerValidation(setup, 'bad', 'invalid', 'expired token');
    await tick();
    // Selected after its failed validation (the tenant route would refuse; the store does not).
    await selectGuide(setup.tenantId, setup.stackId, 'bad', api.clock.now());
    await guideCleared(setup, 'g-bad', 'bad', 'validation_failed');
    const after = await guideSession(setup, { threadId: 'g-bad' });
    expect(after.json).toMatchObject({
      error: {
        message:
          'This Stack has no Guide Credential selected (the last one, "bad", was cleared: validation_failed): an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential.',
      },
      reason: 'none_selected',
      cleared: { name: 'bad', reason: 'validation_failed' },
    });
    expect(await getThread(setup.tenantId, setup.stackId, 'g-bad')).toBeUndefined();

    await selectGuide(setup.tenantId, setup.stackId, 'shelved', api.clock.now());
    expect(
      await updateCredential(setup.tenantId, await stored(setup, 'shelved'), {
        archivedAt: api.clock.now().toISOString(),
      }),
    ).toBe(true);
    // Until a Guide request clears it, the Dashboard shows the selection as archived.
    expect(await dashboardGuide(setup)).toMatchObject({
      name: 'shelved',
      usable: false,
      unusableReason: 'archived',
    });
    const archived = await guideSession(setup, { threadId: 'g-arch' });
    expect(archived.json).toMatchObject({ reason: 'archived', credential: 'shelved' });
    expect((await getGuideSelection(setup.tenantId, setup.stackId)).cleared).toMatchObject({
      name: 'shelved',
      reason: 'archived',
    });

    // A rotation waiting for its validation keeps the selection.
    await selectGuide(setup.tenantId, setup.stackId, 'fine', api.clock.now());
    await apiKey(setup, 'fine', 'provider-a', 'sk-fine-2');
    const pending = await guideSession(setup, { threadId: 'g-pend' });
    expect(pending.json).toMatchObject({
      error: {
        code: 'guide_unavailable',
        message:
          'The Guide Credential "fine" waits for its validation by the Dispatcher: try again once it is validated.',
      },
      reason: 'validation_pending',
    });
    expect((await getGuideSelection(setup.tenantId, setup.stackId)).name).toBe('fine');
    await tick();
    const ok = await guideSession(setup, { threadId: 'g-pend' });
    expect(ok.json).toMatchObject({
      credential: { name: 'fine', position: 'guide' },
      inject: { env: { PROVIDER_A_API_KEY: 'sk-fine-2' } },
    });

    // A selected Credential deleted with its selection left (as the store allows): cleared, said so.
    expect(await deleteCredential(setup.tenantId, await stored(setup, 'fine'))).toBe(true);
    await guideCleared(setup, 'g-gone', 'fine', 'deleted');
    expect(await getThread(setup.tenantId, setup.stackId, 'g-gone')).toBeUndefined();
  });
});

describe('the subscription policy clears the Guide selection at the sweep', () => {
  it('a tenant that cancels in the portal leaves active for decommissioning: the selection is cleared in that sweep, and the Dashboard says why at once', async () => {
    const setup = await stackWithDispatcher();
    await putCredential(setup, { name: 'guide', provider: 'provider-a', kind: 'api_key', material: 'sk-g' });
    await tick();
    await selectGuide(setup.tenantId, setup.stackId, 'guide', api.clock.now());
    expect(await dashboardGuide(setup)).toMatchObject({ name: 'guide', usable: true, cleared: null });

    await cancelInPortal(
      (await api.call('POST', '/v1/billing/portal', { token: setup.sessionToken })).json.url,
    );
    await api.sweep();
    expect((await getTenant(setup.tenantId))?.billingState).toBe('decommissioning');
    // No Guide request was made: the sweep's transition cleared it.
    const at = api.clock.now().toISOString();
    expect(await getGuideSelection(setup.tenantId, setup.stackId)).toEqual({
      cleared: { name: 'guide', reason: 'subscription_policy', at: expect.any(String) },
    });
    expect(await dashboardGuide(setup)).toEqual({
      name: null,
      selectedAt: null,
      usable: false,
      unusableReason: null,
      cleared: { name: 'guide', reason: 'subscription_policy', at: expect.any(String) },
    });
    expect(Date.parse((await dashboardGuide(setup)).cleared.at)).toBeLessThanOrEqual(Date.parse(at));
    // A Guide request now finds nothing selected, and says why the last one went.
    const refused = await guideSession(setup, { threadId: 'g-left' });
    expect(refused.json).toMatchObject({
      error: { code: 'guide_unavailable' },
      reason: 'none_selected',
      cleared: { name: 'guide', reason: 'subscription_policy' },
    });
  });
});

// Last: it moves this file's clock five weeks on.
describe('the subscription policy', () => {
  it('a suspended tenant gets no Thread and no Guide Session; the Guide selection is cleared with subscription_policy by the sweep that suspends it', async () => {
    const setup = await stackWithDispatcher(TEST_CARDS.failsLater);
    await apiKey(setup, 'main', 'provider-a', 'sk-m');
    const projectId = await addProject(setup, { intake: { primary: 'main' } });
    await tick();
    await selectGuide(setup.tenantId, setup.stackId, 'main', api.clock.now());
    expect((await thread(setup, { threadId: 'before', projectId, activity: 'intake' })).status).toBe(200);

    api.clock.advance(31 * DAY);
    await api.sweep();
    // Past-due keeps its Credentials (the Stacks run through the grace): the selection stays.
    expect((await getTenant(setup.tenantId))?.billingState).toBe('past-due');
    expect(await dashboardGuide(setup)).toMatchObject({ name: 'main', usable: true, cleared: null });
    api.clock.advance(7 * DAY);
    await api.sweep();
    expect((await getTenant(setup.tenantId))?.billingState).toBe('suspended');
    // Cleared by the sweep's transition, before any Guide request; the Dashboard shows why.
    expect(await dashboardGuide(setup)).toMatchObject({
      name: null,
      usable: false,
      cleared: { name: 'main', reason: 'subscription_policy' },
    });

    const refused = await thread(setup, { threadId: 'after', projectId, activity: 'intake' });
    expectRefusedAnswer(
      refused,
      409,
      { code: 'no_usable_credential' },
      { reasons: [{ position: 'primary', name: 'main', reason: 'subscription_policy' }] },
    );
    const resumed = await thread(setup, { threadId: 'before', projectId, activity: 'intake' });
    expectRefusedAnswer(
      resumed,
      409,
      {
        code: 'thread_not_resumable',
        message:
          'Thread "before" is bound to Credential "main", which the subscription policy disables: start a new Thread.',
      },
      { reason: 'subscription_policy' },
    );
    const guide = await guideSession(setup, { threadId: 'g-susp' });
    expectRefusedAnswer(
      guide,
      409,
      { code: 'guide_unavailable' },
      { reason: 'none_selected', cleared: { name: 'main', reason: 'subscription_policy' } },
    );
    expect((await getGuideSelection(setup.tenantId, setup.stackId)).cleared).toMatchObject({
      name: 'main',
      reason: 'subscription_policy',
    });
  });
});
