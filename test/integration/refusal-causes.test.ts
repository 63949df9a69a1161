import { describe, expect, it } from 'vitest';
import { getTenant } from '#store/tenants.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { processorView } from '../support/processor-view.ts';
import { storedSnapshot } from '../support/stored.ts';

/**
 * Refusals of a Plan Change and of an added Stack name their cause, through the routes (the local
 * API Gateway, DynamoDB Local, the processor emulator, the sweep): a scheduled cancellation is
 * `cancellation_scheduled` before and after the sweep moved the tenant; the processor's word on
 * the subscription counts even while our state still says `active`; and both are allowed from the
 * first day. A refusal writes nothing.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { subscriptionOf } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

/** Everything stored for the tenant, and its region's capacity: what a refusal must leave as it was. */
/** The four ways to ask for a new Plan or a new Stack, and what each answered. */
const askEverything = async (tenant: Tenant) => {
  const { sessionToken: token } = await api.signIn(tenant.login);
  const preview = await api.call('POST', '/v1/stacks/primary/plan-changes/preview', {
    token,
    body: { plan: 'pro' },
  });
  const confirm = await api.call('POST', '/v1/stacks/primary/plan-changes', {
    token,
    body: { plan: 'pro' },
  });
  const addPreview = await api.call('POST', '/v1/stacks/preview', { token, body: { plan: 'standard' } });
  const add = await api.call('POST', '/v1/stacks', { token, body: { plan: 'standard' } });
  return { preview, confirm, addPreview, add };
};

/** Every answer refuses with `code` (the preview lists it first), and nothing was written. */
const expectAllRefused = async (tenant: Tenant, code: string) => {
  const before = await storedSnapshot(tenant, { inventory: true });
  const { preview, confirm, addPreview, add } = await askEverything(tenant);
  expect(preview.status).toBe(200);
  expect(preview.json.refusals[0]?.code).toBe(code);
  for (const [name, answer] of Object.entries({ confirm, addPreview, add })) {
    expect([answer.status, answer.json.error?.code], name).toEqual([409, code]);
    expect(answer.json.error.message, name).not.toMatch(/resume the subscription/);
  }
  expect(confirm.json.error.message).toBe(preview.json.refusals[0].message);
  expect(await storedSnapshot(tenant, { inventory: true })).toBe(before);
};

describe('a cancellation scheduled in the billing portal', () => {
  it('is named cancellation_scheduled before the sweep saw it and after the sweep moved the tenant to decommissioning', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const portal = await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken });
    expect((await cancelInPortal(portal.json.url)).status).toBeLessThan(400);
    expect(subscriptionOf(tenant.tenantId).cancelAtPeriodEnd).toBe(true);

    // Our state still says active: the processor's word names the cause.
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
    await expectAllRefused(tenant, 'cancellation_scheduled');

    // The sweep moves the tenant for it: the cause is still the scheduled cancellation.
    await api.sweep();
    const closing = await getTenant(tenant.tenantId);
    expect(closing).toMatchObject({ billingState: 'decommissioning', leftBy: 'cancelled_in_portal' });
    await expectAllRefused(tenant, 'cancellation_scheduled');
    const { add } = await askEverything(tenant);
    expect(add.json.teardownAt).toBe(closing?.teardownAt);
  });
});

describe('the processor does not report the subscription active', () => {
  it.each(['past_due', 'unpaid', 'paused'] as const)(
    'while our state still says active (processor: %s): Plan Changes and added Stacks are refused as subscription_not_active',
    async (status) => {
      const tenant = await api.subscribe({ plan: 'plus' });
      const subscription = subscriptionOf(tenant.tenantId);
      subscription.status = status;
      expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
      await expectAllRefused(tenant, 'subscription_not_active');

      // Active again at the processor: both are allowed.
      subscription.status = 'active';
      const { confirm, add } = await askEverything(tenant);
      expect(confirm.status).toBe(202);
      expect(add.status).toBe(201);
    },
  );
});

describe('from the first day', () => {
  it('a tenant that just paid may change its Plan and add a Stack at once', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const paidAt = (await getTenant(tenant.tenantId))?.firstPaidAt;
    expect(paidAt).toBeDefined();
    const { preview, confirm, addPreview, add } = await askEverything(tenant);
    // Still the day it paid, on the Clock.
    expect(api.clock.now().getTime() - Date.parse(paidAt ?? '')).toBeLessThan(3_600_000);
    expect(preview.json.refusals).toEqual([]);
    expect(confirm.status).toBe(202);
    expect(addPreview.status).toBe(200);
    expect(add.status).toBe(201);
  });
});
