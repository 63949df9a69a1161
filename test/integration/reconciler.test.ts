import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { listInventory } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { listStacks } from '#store/stacks.ts';
import { tenant as tenantEntity } from '#store/tenants.ts';
import { runSweep } from '../../functions/reconciler/run-sweep.ts';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal, payOnCheckout, TEST_CARDS, updateCardInPortal } from '../support/hosted-pages.ts';
import { processorView } from '../support/processor-view.ts';
import { runningDesiredState } from '../support/stack-fixture.ts';
import { setStored } from '../support/stored.ts';
import { deliverSigned } from '../support/webhooks.ts';

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

const DAY = 86_400;

/** A tenant that checked out `plan` and paid with `card`; the sweep has seen it. */
const subscribedTenant = async (card: string = TEST_CARDS.succeeds, plan = 'plus') => {
  const tenant = await api.readyTenant();
  const { json } = await api.call('POST', '/v1/billing/checkout', {
    token: tenant.sessionToken,
    body: { plan },
  });
  expect((await payOnCheckout(json.url, card)).status).toBe(303);
  await api.sweep();
  return tenant;
};

/** A fresh session for the tenant's administrator (time travel outlives sessions). */
const statusOf = async (tenant: { login: string }) => {
  const { sessionToken } = await api.signIn(tenant.login);
  return (await api.call('GET', '/v1/billing/status', { token: sessionToken })).json;
};

const portalUrl = async (tenant: { login: string }) => {
  const { sessionToken } = await api.signIn(tenant.login);
  return (await api.call('POST', '/v1/billing/portal', { token: sessionToken })).json.url as string;
};

describe('the sweep: checkout to active', () => {
  it('a paid checkout makes the tenant active with one Stack on the Plan, its caps and resources', async () => {
    const tenant = await subscribedTenant(TEST_CARDS.succeeds, 'plus');
    const status = await statusOf(tenant);
    // The money-back window runs 14 days from the payment of the first invoice, as the processor reports it.
    const firstInvoice = Object.values(api.emulator?.state.invoices ?? {}).find(
      (i) => i.subscription === subscriptionOf(tenant.tenantId).id,
    );
    expect(status).toEqual({
      billingState: 'active',
      graceDeadline: null,
      history: [{ at: expect.any(String), from: 'provisioning', to: 'active', reason: 'checkout_completed' }],
      moneyBack: {
        supportEmail: 'support@stack-control-plane.test',
        windowEndsAt: new Date(((firstInvoice?.paidAt ?? 0) + 14 * 86_400) * 1000).toISOString(),
        available: true,
        used: null,
        usedByEarlierAccount: null,
        reminder: expect.stringContaining('Export your data first'),
      },
      // No Open Signup configured: the first subscription is a founding one, its Stack locked.
      priceLock: { founding: true, lockedStacks: 1, ended: [] },
    });
    const stacks = await listStacks(tenant.tenantId);
    expect(stacks).toHaveLength(1);
    expect(stacks[0]).toMatchObject({
      name: `${tenant.slug}.stacks.test`,
      plan: 'plus',
      runCap: 3,
      reserveCap: 1,
      watchedProjectsCap: 6,
      resources: { vcpu: 4, memoryGb: 8, storageGb: 80 },
      lifecycle: 'running',
    });
  });

  it('renders the desired state (Plan, resources, run_cap, admission open) and never the Watched-Projects cap', async () => {
    const tenant = await subscribedTenant(TEST_CARDS.succeeds, 'pro');
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.stack(tenant.tenantId, 'primary') }),
    );
    expect(Item?.desiredState).toEqual(runningDesiredState(tenant.slug, 'pro'));
    expect(JSON.stringify(Item?.desiredState)).not.toMatch(/watched/i);
  });

  it('the checkout reservation becomes a used place', async () => {
    const tenant = await subscribedTenant();
    const inventory = await listInventory(tenant.region);
    expect(inventory.reservations).toEqual([]);
    expect(inventory.slots.find((s) => s.plan === 'plus')?.used).toBe(1);
  });

  it('history and status carry no processor ids', async () => {
    const tenant = await subscribedTenant();
    expect(JSON.stringify(await statusOf(tenant))).not.toMatch(
      /\b(cus|sub|pi|in|price|prod|si|evt|cs)_[A-Za-z0-9]/,
    );
  });
});

describe('the sweep: events are triggers, applied once', () => {
  it('a redelivered event is recorded once and changes nothing more', async () => {
    const tenant = await subscribedTenant();
    const emulator = api.emulator as ProcessorEmulator;
    const [event] = Object.values(emulator.state.events).filter(
      (e) =>
        (e as { type: string; data: { object: { client_reference_id?: string } } }).data.object
          .client_reference_id === tenant.tenantId,
    );
    const payload = JSON.stringify(event);
    for (let i = 0; i < 3; i++) {
      expect((await deliverSigned(api, payload)).status).toBe(200);
    }
    const summary = await api.sweep();
    expect(summary.intake.duplicates).toBe(3);
    expect((await statusOf(tenant)).history).toHaveLength(1);
  });

  it('overlapping sweeps never apply a transition twice', async () => {
    const tenants = [];
    for (let i = 0; i < 6; i++) {
      const tenant = await api.readyTenant();
      const { json } = await api.call('POST', '/v1/billing/checkout', {
        token: tenant.sessionToken,
        body: { plan: 'standard' },
      });
      await payOnCheckout(json.url, TEST_CARDS.succeeds);
      tenants.push(tenant);
    }
    await api.emulator?.flushWebhooks();
    await Promise.all([runSweep(20_000), runSweep(20_000), runSweep(20_000)]);
    await api.sweep();
    for (const tenant of tenants) {
      const status = await statusOf(tenant);
      expect(status.billingState).toBe('active');
      expect(status.history).toHaveLength(1);
      expect(await listStacks(tenant.tenantId)).toHaveLength(1);
    }
  });
});

describe('the sweep: payment failure and its graces, with time travel', () => {
  it('renewal fails -> past-due (7 days) -> suspended (14 days) -> decommissioning, and nothing brings it back', async () => {
    const tenant = await subscribedTenant(TEST_CARDS.failsLater);
    const portal = await portalUrl(tenant);
    api.clock.advance(31 * DAY);
    await api.sweep();
    const pastDue = await statusOf(tenant);
    expect(pastDue.billingState).toBe('past-due');
    // The grace runs from the failed renewal as the processor reports it (the period boundary), not
    // from the sweep that noticed it days later.
    const subscription = subscriptionOf(tenant.tenantId);
    const renewal = subscription.currentPeriodStart * 1000;
    expect(Date.parse(pastDue.history.at(-1).at) - renewal).toBeGreaterThan(DAY * 1000);
    expect(Date.parse(pastDue.graceDeadline)).toBe(renewal + 7 * DAY * 1000);

    api.clock.advance(7 * DAY);
    await api.sweep();
    const suspended = await statusOf(tenant);
    expect(suspended.billingState).toBe('suspended');
    expect(Date.parse(suspended.graceDeadline) - Date.parse(pastDue.graceDeadline)).toBe(14 * DAY * 1000);

    api.clock.advance(14 * DAY);
    await api.sweep();
    const gone = await statusOf(tenant);
    expect(gone.billingState).toBe('decommissioning');
    expect(gone.history.map((h: { to: string; reason: string }) => `${h.to}:${h.reason}`)).toEqual([
      'active:checkout_completed',
      'past-due:payment_failed',
      'suspended:past_due_grace_elapsed',
      'decommissioning:suspended_grace_elapsed',
    ]);
    expect((await listStacks(tenant.tenantId)).map((s) => s.lifecycle)).toEqual(['decommissioning']);

    // Leaving stops billing: the sweep cancelled the subscription at once (no proration, no invoice
    // now), with our idempotency key and our reason, and voided the open invoice.
    const cancels = api.emulator?.calls.filter(
      (c) => c.method === 'DELETE' && c.path === `/v1/subscriptions/${subscription.id}`,
    );
    expect(cancels).toHaveLength(1);
    expect(cancels?.[0]?.params).toMatchObject({
      prorate: 'false',
      invoice_now: 'false',
      cancellation_details: { comment: 'stack-control-plane:suspended_grace_elapsed' },
    });
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
    const invoices = () =>
      Object.values(api.emulator?.state.invoices ?? {}).filter((i) => i.subscription === subscription.id);
    expect(invoices().filter((i) => i.status === 'open')).toEqual([]);
    expect(invoices().some((i) => i.status === 'void')).toBe(true);
    const voids = api.emulator?.calls.filter(
      (c) => c.method === 'POST' && /\/v1\/invoices\/in_\w+\/void$/.test(c.path),
    );
    expect(voids?.length).toBeGreaterThan(0);
    expect(voids?.every((c) => c.idempotencyKey === `void:${c.path.split('/')[3]}`)).toBe(true);
    const gone2 = await statusOf(tenant);
    expect(gone2.closing).toMatchObject({
      reason: 'suspended_grace_elapsed',
      billingStopped: true,
      tornDown: false,
    });
    // Teardown waits for the export window (7 days), with admission closed.
    expect(Date.parse(gone2.closing.teardownAt) - Date.parse(gone2.history.at(-1).at)).toBe(7 * DAY * 1000);
    expect((await listStacks(tenant.tenantId))[0]).toMatchObject({ admissionOpenUntilTeardown: false });

    // Two months later: no new invoice, no charge; a card update pays nothing and changes nothing.
    const invoicesBefore = invoices().length;
    const chargesBefore = Object.values(api.emulator?.state.paymentIntents ?? {}).filter(
      (p) => p.customer === subscription.customer && p.status === 'succeeded',
    ).length;
    api.clock.advance(62 * DAY);
    await api.sweep();
    expect(await updateCardInPortal(portal, TEST_CARDS.succeeds)).toBeDefined();
    await api.sweep();
    expect(invoices()).toHaveLength(invoicesBefore);
    expect(
      Object.values(api.emulator?.state.paymentIntents ?? {}).filter(
        (p) => p.customer === subscription.customer && p.status === 'succeeded',
      ),
    ).toHaveLength(chargesBefore);
    const final = await statusOf(tenant);
    expect(final.billingState).toBe('decommissioning');
    expect(final.closing).toMatchObject({ tornDown: true });
    expect((await listStacks(tenant.tenantId)).map((s) => s.lifecycle)).toEqual(['torn_down']);
  });

  it('suspended -> active when the card is updated in the portal', async () => {
    const tenant = await subscribedTenant(TEST_CARDS.failsLater);
    const portal = await portalUrl(tenant);
    api.clock.advance(31 * DAY);
    await api.sweep();
    api.clock.advance(8 * DAY);
    await api.sweep();
    expect((await statusOf(tenant)).billingState).toBe('suspended');
    await updateCardInPortal(portal, TEST_CARDS.succeeds);
    await api.sweep();
    const recovered = await statusOf(tenant);
    expect(recovered.billingState).toBe('active');
    expect(recovered.graceDeadline).toBeNull();
    expect(recovered.history.at(-1)).toMatchObject({
      from: 'suspended',
      to: 'active',
      reason: 'payment_recovered',
    });
  });

  it('cancelling in the portal -> decommissioning; the cancel tears nothing down by itself', async () => {
    const tenant = await subscribedTenant();
    await cancelInPortal(await portalUrl(tenant));
    await api.sweep();
    const status = await statusOf(tenant);
    expect(status.billingState).toBe('decommissioning');
    expect(status.history.at(-1)).toMatchObject({ from: 'active', reason: 'cancelled_in_portal' });
    const [stack] = await listStacks(tenant.tenantId);
    expect(stack?.lifecycle).toBe('decommissioning');
  });
});

describe('the sweep: one tenant’s trouble stops nobody else', () => {
  it('a tenant the processor cannot answer for stays due; the others are reconciled', async () => {
    const broken = await api.readyTenant();
    await setStored(keys.billing(broken.tenantId), {
      subscriptionId: 'sub_does_not_exist',
      tenantId: broken.tenantId,
    });
    const stamp = new Date(api.clock.now().getTime() - 1000).toISOString();
    await setStored(keys.tenant(broken.tenantId), {
      dueAt: stamp,
      ...tenantEntity.index.due(broken.tenantId, stamp),
    });
    const healthy = await api.readyTenant();
    const { json } = await api.call('POST', '/v1/billing/checkout', {
      token: healthy.sessionToken,
      body: { plan: 'standard' },
    });
    await payOnCheckout(json.url, TEST_CARDS.succeeds);
    const summary = await api.sweep();
    expect(summary.failed).toBeGreaterThanOrEqual(1);
    expect((await statusOf(healthy)).billingState).toBe('active');
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(broken.tenantId) }),
    );
    // It stays in the due index, retried after a backoff (functions/core/reconcile-backoff.ts).
    expect(Item?.reconcileFailures).toBeGreaterThanOrEqual(1);
    expect(Item?.GSI2PK).toBe(tenantEntity.index.due(broken.tenantId, stamp).GSI2PK);
    expect(Date.parse(Item?.dueAt)).toBeGreaterThan(Date.parse(stamp));
  });
});
