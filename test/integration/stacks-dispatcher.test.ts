import { describe, expect, it } from 'vitest';
import { getStack } from '#store/stacks.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { runningDesiredState } from '../support/stack-fixture.ts';

/**
 * Stacks as records and the Dispatcher contract: the Stack views, the per-Stack Dispatcher
 * credential (issued, rotated with an overlap), desired state with ETag/304, observed state, the
 * Watched-Projects cap, and the blocking verdict, against DynamoDB Local and the processor emulator.
 */

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const subscribed = (plan: string): Promise<Tenant> => api.subscribe({ plan });

const credentialFor = async (tenant: Tenant, stackId = 'primary') => {
  const issued = await api.call('POST', `/v1/stacks/${stackId}/dispatcher-credential`, {
    token: tenant.sessionToken,
  });
  expect(issued.status).toBe(201);
  return issued.json as {
    credential: string;
    credentialId: string;
    previousCredentialValidUntil: string | null;
  };
};

const asDispatcher = (
  credential: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) => api.call(method, path, { token: credential, ...options });

const FORBIDDEN_IN_VIEWS = /cus_|sub_|pi_|in_\w|scd_|dispatcherCredential|secret|s3:|arn:/i;

describe('Stacks as records', () => {
  it('GET /v1/stacks and /v1/stacks/{id} show the Stack, its Plan, caps, resources, location and versions, and nothing internal', async () => {
    const tenant = await subscribed('plus');
    await credentialFor(tenant);
    const listed = await api.call('GET', '/v1/stacks', { token: tenant.sessionToken });
    expect(listed.status).toBe(200);
    expect(listed.json.stacks).toHaveLength(1);
    const [stack] = listed.json.stacks;
    expect(stack).toMatchObject({
      stackId: 'primary',
      name: `${tenant.slug}.stacks.test`,
      address: `https://${tenant.slug}.stacks.test`,
      plan: 'plus',
      caps: { runCap: 3, reserveCap: 1, watchedProjectsCap: 6 },
      resources: { vcpu: 4, memoryGb: 8, storageGb: 80 },
      location: `${tenant.region}-a`,
      lifecycle: 'creating',
      desiredStateVersion: 1,
      appliedVersion: null,
      health: 'unknown',
    });
    expect(JSON.stringify(listed.json)).not.toMatch(FORBIDDEN_IN_VIEWS);
    const one = await api.call('GET', '/v1/stacks/primary', { token: tenant.sessionToken });
    expect(one.json).toEqual(stack);
    const missing = await api.call('GET', '/v1/stacks/nope', { token: tenant.sessionToken });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('stack_not_found');
  });
});

describe('the Dispatcher contract', () => {
  it('desired state with its version as ETag, 304 when unchanged; observed state moves the Stack to running', async () => {
    const tenant = await subscribed('standard');
    const { credential } = await credentialFor(tenant);
    expect(credential).toMatch(/^scd_[A-Za-z0-9_-]{43}$/);
    // Only the hash is stored.
    const stored = await getStack(tenant.tenantId, 'primary');
    expect(JSON.stringify(stored)).not.toContain(credential);

    const desired = await asDispatcher(credential, 'GET', '/v1/dispatcher/desired-state');
    expect(desired.status).toBe(200);
    expect(desired.headers.etag).toBe('"v1"');
    expect(desired.json).toEqual({
      version: 1,
      ...runningDesiredState(tenant.slug, 'standard'),
      poll_after_seconds: 10,
      heartbeat_seconds: 7200,
    });
    const again = await asDispatcher(credential, 'GET', '/v1/dispatcher/desired-state', {
      headers: { 'if-none-match': '"v1"' },
    });
    expect(again.status).toBe(304);

    const ahead = await asDispatcher(credential, 'PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 2, health: 'healthy', activeRuns: 0 },
    });
    expect(ahead.status).toBe(409);
    expect((await getStack(tenant.tenantId, 'primary'))?.observed).toBeUndefined();

    const report = await asDispatcher(credential, 'PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 1, health: 'healthy', activeRuns: 2 },
    });
    expect(report.status).toBe(200);
    expect(report.json).toEqual({
      desiredStateVersion: 1,
      poll_after_seconds: expect.any(Number),
      heartbeat_seconds: 7200,
    });
    expect(report.json.poll_after_seconds).toBeGreaterThanOrEqual(720);
    expect(report.json.poll_after_seconds).toBeLessThanOrEqual(1080);
    const view = (await api.call('GET', '/v1/stacks/primary', { token: tenant.sessionToken })).json;
    expect(view).toMatchObject({ lifecycle: 'running', appliedVersion: 1, health: 'healthy', activeRuns: 2 });

    // Leaving changes the desired state: a new version, a new ETag, admission open until the paid period ends.
    const portal = (await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken })).json.url;
    await cancelInPortal(portal);
    await api.sweep();
    const changed = await asDispatcher(credential, 'GET', '/v1/dispatcher/desired-state', {
      headers: { 'if-none-match': '"v1"' },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).toBe('"v2"');
    expect(changed.json).toMatchObject({
      version: 2,
      lifecycle: 'decommissioning',
      admission: 'open',
      poll_after_seconds: 10,
    });
  });

  it('a Dispatcher credential reaches only its own Stack and never the tenant routes; a session never the Dispatcher routes', async () => {
    const first = await subscribed('standard');
    const second = await subscribed('pro');
    const firstCredential = (await credentialFor(first)).credential;
    const desired = await asDispatcher(firstCredential, 'GET', '/v1/dispatcher/desired-state');
    expect(desired.json.stack).toBe(`${first.slug}.stacks.test`);
    const report = await asDispatcher(firstCredential, 'PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 1, health: 'unhealthy', activeRuns: 0 },
    });
    expect(report.status).toBe(200);
    expect((await getStack(second.tenantId, 'primary'))?.observed).toBeUndefined();

    for (const [method, path] of [
      ['GET', '/v1/stacks'],
      ['GET', '/v1/billing/status'],
      ['POST', '/v1/stacks/primary/dispatcher-credential'],
    ] as const) {
      const refused = await asDispatcher(firstCredential, method, path);
      expect(refused.status).toBe(401);
    }
    const bySession = await api.call('GET', '/v1/dispatcher/desired-state', { token: second.sessionToken });
    expect(bySession.status).toBe(401);
    expect(bySession.json.error.code).toBe('dispatcher_credential_required');
    const forged = await asDispatcher(`scd_${'A'.repeat(43)}`, 'GET', '/v1/dispatcher/desired-state');
    expect(forged.status).toBe(401);
    expect(forged.json.error.code).toBe('invalid_dispatcher_credential');
  });

  it('rotation: the new credential works at once, the old one for an hour more, then not at all', async () => {
    const tenant = await subscribed('standard');
    const first = await credentialFor(tenant);
    const member = `${tenant.login}-m`;
    await api.call('POST', '/_local/members', { token: tenant.sessionToken, body: { login: member } });
    const byMember = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
      token: (await api.signIn(member)).sessionToken,
    });
    expect(byMember.status).toBe(403);

    const second = await credentialFor(tenant);
    expect(second.previousCredentialValidUntil).not.toBeNull();
    expect((await asDispatcher(second.credential, 'GET', '/v1/dispatcher/desired-state')).status).toBe(200);
    expect((await asDispatcher(first.credential, 'GET', '/v1/dispatcher/desired-state')).status).toBe(200);
    api.clock.advance(61 * 60);
    expect((await asDispatcher(first.credential, 'GET', '/v1/dispatcher/desired-state')).status).toBe(401);
    expect((await asDispatcher(second.credential, 'GET', '/v1/dispatcher/desired-state')).status).toBe(200);
  });
});

describe('Projects and the Watched-Projects cap', () => {
  it('registrations stop at the cap, also when they race; a removal frees a place; a repository counts once', async () => {
    const tenant = await subscribed('standard');
    const token = tenant.sessionToken;
    const register = (n: number) =>
      api.call('POST', '/v1/stacks/primary/projects', {
        token,
        body: { name: `p${n}`, repository: `acme/repo-${n}` },
      });
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(register));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(3);
    expect(refused[0]?.json).toMatchObject({
      error: { code: 'watched_projects_cap_reached' },
      watchedProjectsCap: 3,
    });
    const listed = (await api.call('GET', '/v1/stacks/primary/projects', { token })).json;
    expect(listed.watchedProjectsCap).toBe(3);
    expect(listed.projects).toHaveLength(3);
    expect((await getStack(tenant.tenantId, 'primary'))?.projectCount).toBe(3);

    const removed = await api.call('DELETE', `/v1/stacks/primary/projects/${listed.projects[0].projectId}`, {
      token,
    });
    expect(removed.status).toBe(204);
    expect(
      (await api.call('DELETE', `/v1/stacks/primary/projects/${listed.projects[0].projectId}`, { token }))
        .status,
    ).toBe(404);
    const duplicate = await api.call('POST', '/v1/stacks/primary/projects', {
      token,
      body: { name: 'again', repository: listed.projects[1].repository.toUpperCase() },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json.error.code).toBe('project_exists');
    expect((await register(9)).status).toBe(201);
    expect((await getStack(tenant.tenantId, 'primary'))?.projectCount).toBe(3);
    const bad = await api.call('POST', '/v1/stacks/primary/projects', {
      token,
      body: { name: 'x', repository: 'not a repo' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('repository');
    // The cap stays on the control plane: never in the desired state.
    const { credential } = await credentialFor(tenant);
    const desired = await asDispatcher(credential, 'GET', '/v1/dispatcher/desired-state');
    expect(JSON.stringify(desired.json)).not.toMatch(/watched|project/i);
  });
});

describe('the blocking verdict route', () => {
  it('answers the verdict and the open blockers for a Dispatcher; a session is refused', async () => {
    const tenant = await subscribed('standard');
    const { credential } = await credentialFor(tenant);
    const body = {
      issue: { repository: 'acme/app', number: 10 },
      nativeDependencies: [{ repository: 'acme/app', number: 1, state: 'closed' }],
      relationshipEdges: [{ repository: 'acme/lib', number: 2, state: 'open' }],
      body: '## Blocked by\n- #3\n',
      states: { 'acme/app#3': 'closed' },
    };
    const verdict = await asDispatcher(credential, 'POST', '/v1/dispatcher/blocking-verdict', { body });
    expect(verdict.status).toBe(200);
    expect(verdict.json).toEqual({
      blocked: true,
      openBlockers: [{ repository: 'acme/lib', number: 2, state: 'open', sources: ['relationship_edge'] }],
    });
    const bySession = await api.call('POST', '/v1/dispatcher/blocking-verdict', {
      token: tenant.sessionToken,
      body,
    });
    expect(bySession.status).toBe(401);
  });
});
