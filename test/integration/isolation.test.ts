import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackOnPlan } from '#core/stacks.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { stackItem } from '#store/stacks.ts';
import { type Route, routes, servedPaths } from '../../lib/routes.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin } from '../support/gateway.ts';
import { tenantPartition } from '../support/stored.ts';

/**
 * Walks every route of lib/routes.ts, at every path it answers at (its own and those of `alsoAt`),
 * as another tenant and as a member of the victim tenant, and checks that the victim's data
 * neither changes nor leaks. Every route must have an entry here: a new route that is not walked
 * fails this test.
 */

const { api } = gatewayForFile();

interface Victim {
  tenantId: string;
  adminUserId: string;
  slug: string;
  memberLogin: string;
  /** An export of the victim's Stack `primary`. */
  exportId: string;
}

interface Probe {
  /** Refused to members (403 admin_required). */
  adminOnly: boolean;
  /** The request, aimed as far as it can be at the victim's data (`path` fills the route's parameters). */
  request: (victim: Victim) => { query?: string; body?: unknown; path?: string };
  /** What another tenant's attempt must get (by default: anything that neither changes nor shows the victim). */
  otherTenantStatus?: number;
}

/** The victim's Credential on its Stack `primary` (its material never reaches anyone else). */
const VICTIM_CREDENTIAL = 'victim-key';
const VICTIM_MATERIAL = `victim-material-${Math.random().toString(36).slice(2)}`;

const WALK: Record<string, Probe> = {
  AuthSignIn: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}` }) },
  AuthCallback: {
    adminOnly: false,
    request: (v) => ({ query: `state=forged&code=forged&tenantId=${v.tenantId}` }),
    otherTenantStatus: 400,
  },
  AuthSignOut: { adminOnly: false, request: () => ({}) },
  GetMe: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}&userId=${v.adminUserId}` }) },
  PostTenantSlug: { adminOnly: true, request: (v) => ({ body: { slug: v.slug } }), otherTenantStatus: 409 },
  GetBillingPlans: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}` }) },
  GetBillingStatus: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}` }) },
  GetBillingSummary: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}` }) },
  GetBillingInvoices: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}` }) },
  // A reference of the victim's form: another tenant's session looks only at its own invoices
  // (test/integration/billing-invoices.test.ts follows a real one of another tenant).
  GetBillingInvoiceDocument: {
    adminOnly: false,
    request: (v) => ({
      path: '/v1/billing/invoices/1700000000-0123456789abcdef0123/view',
      query: `tenantId=${v.tenantId}`,
    }),
    otherTenantStatus: 404,
  },
  // The intruder's own tenant has no slug yet, so its checkout stops there; the victim's is untouched.
  PostBillingCheckout: {
    adminOnly: true,
    request: () => ({ body: { plan: 'plus' } }),
    otherTenantStatus: 409,
  },
  PostBillingWaitlist: {
    adminOnly: true,
    request: () => ({ body: { plan: 'pro' } }),
    otherTenantStatus: 201,
  },
  PostBillingPortal: { adminOnly: true, request: () => ({}), otherTenantStatus: 409 },
  // Another tenant can only close its own (never-paid) account; the victim's stays as it was.
  // The victim's Stack by its id: another tenant's session finds no such Stack (404).
  GetStacks: { adminOnly: false, request: (v) => ({ query: `tenantId=${v.tenantId}` }) },
  // The intruder's own tenant never paid: its add is refused; the victim's Stacks are untouched.
  PostStacks: { adminOnly: true, request: () => ({ body: { plan: 'plus' } }), otherTenantStatus: 409 },
  PostStacksPreview: { adminOnly: true, request: () => ({ body: { plan: 'plus' } }), otherTenantStatus: 409 },
  GetStack: { adminOnly: false, request: () => ({ path: '/v1/stacks/primary' }), otherTenantStatus: 404 },
  PostStackDispatcherCredential: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/dispatcher-credential' }),
    otherTenantStatus: 404,
  },
  PostStackProject: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/projects', body: { name: 'x', repository: 'acme/x' } }),
    otherTenantStatus: 404,
  },
  GetStackProjects: {
    adminOnly: false,
    request: () => ({ path: '/v1/stacks/primary/projects' }),
    otherTenantStatus: 404,
  },
  DeleteStackProject: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/projects/prj_victim' }),
    otherTenantStatus: 404,
  },
  PostPlanChangePreview: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/plan-changes/preview', body: { plan: 'pro' } }),
    otherTenantStatus: 404,
  },
  PostPlanChange: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/plan-changes', body: { plan: 'pro' } }),
    otherTenantStatus: 404,
  },
  PostPlanChangeCancel: {
    adminOnly: true,
    request: () => ({ path: '/v1/plan-changes/pc_victim/cancel' }),
    otherTenantStatus: 404,
  },
  GetPlanChanges: { adminOnly: false, request: () => ({}) },
  GetPlanChange: {
    adminOnly: false,
    request: () => ({ path: '/v1/plan-changes/pc_victim' }),
    otherTenantStatus: 404,
  },
  GetPlanChangesExport: { adminOnly: true, request: () => ({}) },
  // Credentials: the victim's own, on its Stack `primary`; another tenant's session finds no such Stack.
  PostCredential: {
    adminOnly: true,
    request: () => ({
      path: `/v1/credentials/${VICTIM_CREDENTIAL}`,
      query: 'stackId=primary',
      body: { provider: 'provider-c', kind: 'api_key', material: 'intruder-material' },
    }),
    otherTenantStatus: 404,
  },
  GetCredentials: { adminOnly: false, request: () => ({ query: 'stackId=primary' }), otherTenantStatus: 404 },
  // The same catalog for every tenant: nothing of the victim's in it.
  GetCredentialCatalog: { adminOnly: false, request: () => ({}) },
  PostCredentialArchive: {
    adminOnly: true,
    request: () => ({ path: `/v1/credentials/${VICTIM_CREDENTIAL}/archive`, query: 'stackId=primary' }),
    otherTenantStatus: 404,
  },
  DeleteCredential: {
    adminOnly: true,
    request: () => ({ path: `/v1/credentials/${VICTIM_CREDENTIAL}`, query: 'stackId=primary' }),
    otherTenantStatus: 404,
  },
  PutProjectCredentialRoutes: {
    adminOnly: true,
    request: () => ({
      path: '/v1/stacks/primary/projects/prj_victim/credential-routes',
      body: { dispatch: { primary: VICTIM_CREDENTIAL } },
    }),
    otherTenantStatus: 404,
  },
  PutGuideCredential: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/guide-credential', body: { name: VICTIM_CREDENTIAL } }),
    otherTenantStatus: 404,
  },
  // Exports of the victim's Stack: another tenant's session finds no such Stack (404).
  PostStackExport: {
    adminOnly: true,
    request: () => ({ path: '/v1/stacks/primary/exports' }),
    otherTenantStatus: 404,
  },
  GetStackExports: {
    adminOnly: false,
    request: () => ({ path: '/v1/stacks/primary/exports' }),
    otherTenantStatus: 404,
  },
  GetStackExport: {
    adminOnly: false,
    request: (v) => ({ path: `/v1/stacks/primary/exports/${v.exportId}` }),
    otherTenantStatus: 404,
  },
  PostStackExportDownload: {
    adminOnly: true,
    request: (v) => ({ path: `/v1/stacks/primary/exports/${v.exportId}/download` }),
    otherTenantStatus: 404,
  },
  // Dispatcher routes: no tenant session reaches them (401), member or not.
  GetDispatcherDesiredState: { adminOnly: false, request: () => ({}), otherTenantStatus: 401 },
  PutDispatcherObservedState: {
    adminOnly: false,
    request: () => ({ body: { appliedVersion: 1, health: 'healthy', activeRuns: 0 } }),
    otherTenantStatus: 401,
  },
  PostDispatcherBlockingVerdict: {
    adminOnly: false,
    request: () => ({ body: { issue: { repository: 'a/b', number: 1 } } }),
    otherTenantStatus: 401,
  },
  GetDispatcherCredential: {
    adminOnly: false,
    request: () => ({ path: `/v1/dispatcher/credentials/${VICTIM_CREDENTIAL}` }),
    otherTenantStatus: 401,
  },
  PostDispatcherCredentialValidation: {
    adminOnly: false,
    request: () => ({
      path: `/v1/dispatcher/credentials/${VICTIM_CREDENTIAL}/validation`,
      body: { version: 1, outcome: 'invalid', reason: 'intruder' },
    }),
    otherTenantStatus: 401,
  },
  PostDispatcherExportParts: {
    adminOnly: false,
    request: (v) => ({ path: `/v1/dispatcher/exports/${v.exportId}/parts`, body: { partNumbers: [1] } }),
    otherTenantStatus: 401,
  },
  PostDispatcherExportOutcome: {
    adminOnly: false,
    request: (v) => ({
      path: `/v1/dispatcher/exports/${v.exportId}/outcome`,
      body: { outcome: 'failed', reason: 'intruder' },
    }),
    otherTenantStatus: 401,
  },
  PostDispatcherThread: {
    adminOnly: false,
    request: () => ({ body: { threadId: 't-victim', projectId: 'prj_victim', activity: 'dispatch' } }),
    otherTenantStatus: 401,
  },
  PostDispatcherGuideSession: {
    adminOnly: false,
    request: () => ({ body: { threadId: 't-victim' } }),
    otherTenantStatus: 401,
  },
  PostTenantClose: {
    adminOnly: true,
    request: (v) => ({ query: `tenantId=${v.tenantId}` }),
    otherTenantStatus: 202,
  },
  // The operator route takes IAM-signed requests only: no tenant session gets through (locally: 403).
  PostOpsRefund: {
    adminOnly: false,
    request: (v) => ({ body: { slug: v.slug, email: 'intruder@example.test' } }),
    otherTenantStatus: 403,
  },
  ProcessorWebhook: {
    adminOnly: false,
    request: (v) => ({
      body: {
        type: 'customer.subscription.deleted',
        data: { object: { metadata: { tenantId: v.tenantId } } },
      },
    }),
    otherTenantStatus: 400,
  },
};

/** A path a route answers at, walked as a route of its own with its route's probe. */
interface Walked extends Route {
  /** The route's id in lib/routes.ts (its entry of WALK). */
  routeId: string;
  /** The route's own path, which its probe's `path` fills. */
  ownPath: string;
}

const walked: Walked[] = routes.flatMap((route) =>
  servedPaths(route).map(({ path, id }) => ({ ...route, id, path, routeId: route.id, ownPath: route.path })),
);

/** `concrete` (a request path of `template`) at another template of the same parameters. */
const retarget = (concrete: string, template: string, other: string): string => {
  const names: string[] = [];
  const pattern = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const values = new RegExp(`^${pattern}$`).exec(concrete)?.slice(1) ?? [];
  return other.replace(/\{(\w+)\}/g, (match, name: string) => values[names.indexOf(name)] ?? match);
};

/** The route's probe, aimed at the same data through the path walked. */
const probeFor = (route: Walked): Probe => {
  const probe: Probe = WALK[route.routeId] ?? { adminOnly: true, request: () => ({}) };
  if (route.path === route.ownPath) return probe;
  return {
    ...probe,
    request: (victim) => {
      const request = probe.request(victim);
      return request.path === undefined
        ? request
        : { ...request, path: retarget(request.path, route.ownPath, route.path) };
    },
  };
};

/** Everything the victim tenant owns, as stored. */
const snapshot = async (victim: Victim) => {
  const partition = { Items: await tenantPartition(victim.tenantId) };
  const slug = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.slug(victim.slug), ConsistentRead: true }),
  );
  const admin = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.user(victim.adminUserId), ConsistentRead: true }),
  );
  return JSON.stringify({ items: partition.Items, slug: slug.Item, admin: admin.Item });
};

const send = (route: Route, token: string, probe: Probe, victim: Victim) => {
  const { query, body, path } = probe.request(victim);
  return api.call(route.method, `${path ?? route.path}${query ? `?${query}` : ''}`, {
    token,
    ...(body === undefined ? {} : { body }),
  });
};

let victim: Victim;
beforeAll(async () => {
  const admin = await api.signIn(uniqueLogin('victim'));
  const slug = `victim-${Math.random().toString(36).slice(2, 10)}`;
  expect(
    (await api.call('POST', '/v1/tenant/slug', { token: admin.sessionToken, body: { slug } })).status,
  ).toBe(200);
  const memberLogin = uniqueLogin('insider');
  expect(
    (await api.call('POST', '/_local/members', { token: admin.sessionToken, body: { login: memberLogin } }))
      .status,
  ).toBe(201);
  victim = { tenantId: admin.tenantId, adminUserId: admin.userId, slug, memberLogin, exportId: '' };
  // The victim has a Stack (as an activation would have created it), for the Stack routes.
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: stackItem(
        victim.tenantId,
        stackOnPlan({
          stackId: 'primary',
          name: `${slug}.stacks.test`,
          plan: 'standard',
          location: 'eu-a',
          createdAt: new Date().toISOString(),
        }),
        { region: 'eu', placed: false },
      ),
    }),
  );
  victimAdminToken = admin.sessionToken;
  victimCredential = await credentialOf(admin.sessionToken);
  // An export of the victim's Stack, running (the export routes are walked at it).
  const exported = await api.call('POST', '/v1/stacks/primary/exports', { token: admin.sessionToken });
  expect(exported.status).toBe(202);
  victim.exportId = exported.json.exportId;
  const provisioned = await api.call('POST', `/v1/credentials/${VICTIM_CREDENTIAL}`, {
    token: admin.sessionToken,
    body: { provider: 'provider-c', kind: 'api_key', material: VICTIM_MATERIAL },
  });
  expect(provisioned.status).toBe(201);
  // Another tenant's Stack and its Dispatcher credential.
  const other = await api.signIn(uniqueLogin('other'));
  const otherSlug = `other-${Math.random().toString(36).slice(2, 10)}`;
  await api.call('POST', '/v1/tenant/slug', { token: other.sessionToken, body: { slug: otherSlug } });
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: stackItem(
        other.tenantId,
        stackOnPlan({
          stackId: 'primary',
          name: `${otherSlug}.stacks.test`,
          plan: 'standard',
          location: 'eu-a',
          createdAt: new Date().toISOString(),
        }),
        { region: 'eu', placed: false },
      ),
    }),
  );
  otherCredential = await credentialOf(other.sessionToken);
});

let victimAdminToken: string;
let victimCredential: string;
let otherCredential: string;

/** Issues the Dispatcher credential of a tenant's Stack `primary` (its administrator's session). */
const credentialOf = async (adminToken: string): Promise<string> => {
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', { token: adminToken });
  expect(issued.status).toBe(201);
  return issued.json.credential as string;
};

// Session and Dispatcher routes; `iam` (operator) routes take no session at all and are walked below.
const guarded = walked.filter((route) => route.auth === 'session' || route.auth === 'dispatcher');

describe('every guarded route: no credential, a malformed body, another Stack’s Dispatcher', () => {
  it.each(guarded.map((route) => [route.id, route] as const))(
    '%s without a session or credential: 401, nothing written',
    async (_id, route) => {
      const probe = probeFor(route);
      const before = await snapshot(victim);
      const { query, body, path } = probe.request(victim);
      const response = await api.call(route.method, `${path ?? route.path}${query ? `?${query}` : ''}`, {
        ...(body === undefined ? {} : { body }),
      });
      expect(response.status).toBe(401);
      expect(await snapshot(victim)).toBe(before);
    },
  );

  it.each(
    guarded
      .filter((route) => route.method === 'POST' || route.method === 'PUT')
      .map((route) => [route.id, route] as const),
  )('%s with a malformed body: 400, nothing written', async (_id, route) => {
    const probe = probeFor(route);
    const before = await snapshot(victim);
    const { path } = probe.request(victim);
    const response = await api.call(route.method, path ?? route.path, {
      token: route.auth === 'dispatcher' ? victimCredential : victimAdminToken,
      rawBody: '{"not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('invalid_json');
    expect(await snapshot(victim)).toBe(before);
  });

  it.each(guarded.filter((route) => route.auth === 'dispatcher').map((route) => [route.id, route] as const))(
    "%s with another Stack's Dispatcher credential neither changes nor sees the victim's data",
    async (_id, route) => {
      const probe = probeFor(route);
      const before = await snapshot(victim);
      const response = await send(route, otherCredential, probe, victim);
      expect(response.status).toBeLessThan(500);
      expect(await snapshot(victim)).toBe(before);
      expect(JSON.stringify(response.json ?? null)).not.toContain(victim.slug);
      expect(JSON.stringify(response.json ?? null)).not.toContain(VICTIM_MATERIAL);
    },
  );

  it('a Dispatcher credential on the tenant routes: 401, nothing written', async () => {
    for (const route of guarded.filter((r) => r.auth === 'session')) {
      const probe = probeFor(route);
      const before = await snapshot(victim);
      const response = await send(route, victimCredential, probe, victim);
      expect(response.status, route.id).toBe(401);
      expect(await snapshot(victim)).toBe(before);
    }
  });

  it('operator (iam) routes: no credential, a session or a Dispatcher credential all get 403, nothing written', async () => {
    for (const route of walked.filter((r) => r.auth === 'iam')) {
      const probe = probeFor(route);
      const before = await snapshot(victim);
      for (const token of [undefined, victimAdminToken, victimCredential]) {
        const { body } = probe.request(victim);
        const response = await api.call(route.method, route.path, {
          ...(token ? { token } : {}),
          ...(body === undefined ? {} : { body }),
        });
        expect(response.status, route.id).toBe(403);
      }
      expect(await snapshot(victim)).toBe(before);
    }
  });
});

describe('tenant isolation: every route, walked', () => {
  it('the walk covers exactly the routes of lib/routes.ts', () => {
    expect(Object.keys(WALK).sort()).toEqual(routes.map((route) => route.id).sort());
  });

  describe.each(walked.map((route) => [route.id, route] as const))('%s', (_id, route) => {
    // A route missing from the walk fails 'the walk covers exactly the routes' above; it is still walked as admin-only.
    const probe = probeFor(route);

    it("another tenant's session neither changes nor sees the victim's data", async () => {
      const intruder = await api.signIn(uniqueLogin('intruder'));
      const before = await snapshot(victim);
      const response = await send(route, intruder.sessionToken, probe, victim);
      expect(await snapshot(victim)).toBe(before);
      if (probe.otherTenantStatus !== undefined) expect(response.status).toBe(probe.otherTenantStatus);
      const shown = JSON.stringify({
        body: response.json ?? null,
        location: response.headers.location ?? null,
      });
      expect(shown).not.toContain(victim.tenantId);
      expect(shown).not.toContain(victim.adminUserId);
      expect(shown).not.toContain(VICTIM_MATERIAL);
      if (probe.otherTenantStatus === undefined) expect(shown).not.toContain(victim.slug);
    });

    it(`a member's session ${probe.adminOnly ? 'is refused with 403 admin_required' : 'is allowed'} and changes nothing of the tenant`, async () => {
      const member = await api.signIn(victim.memberLogin);
      const before = await snapshot(victim);
      const response = await send(route, member.sessionToken, probe, victim);
      expect(await snapshot(victim)).toBe(before);
      expect(JSON.stringify(response.json ?? null)).not.toContain(VICTIM_MATERIAL);
      if (probe.adminOnly) {
        expect(response.status).toBe(403);
        expect(response.json.error.code).toBe('admin_required');
      } else {
        expect(response.json?.error?.code).not.toBe('admin_required');
      }
    });
  });
});
