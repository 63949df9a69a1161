import { describe, expect, it } from 'vitest';
import { getBilling } from '#store/billing.ts';
import { listInventory } from '#store/capacity.ts';
import { getTenant } from '#store/tenants.ts';
import type { SubscriptionRecord } from '../../lib/local/processor/state.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { CallResult, TestControlPlane } from '../support/gateway.ts';
import { processorView, withFaults } from '../support/processor-view.ts';
import { tenantPartition } from '../support/stored.ts';

/**
 * Money rules that held only on their most common state (issue 35, item 7), through the routes,
 * DynamoDB Local and the processor emulator:
 * - at most one live subscription: a subscription of the tenant's processor customer in any live
 *   status (not only `active`) refuses both the checkout and the close, and nothing is created;
 *   one that ended does not count;
 * - a processor write applied whose answer was lost: the retried checkout leaves exactly one
 *   customer, and exactly one Checkout Session that can be paid;
 * - every processor write these flows made carried one of our keys (test/unit/processor-write-keys
 *   checks every write the adapter can make).
 */

const { api, emulator } = gatewayForFile({ processor: true });
const { priceOf, customersOf, checkoutSessionsOf } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;
type Status = SubscriptionRecord['status'];

const checkout = (tenant: Tenant, plan: string) =>
  api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan } });
const close = (tenant: Tenant) => api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken });

/** What a refusal must leave as it was: the tenant's items, its region's places, its sessions at the processor. */
const everything = async (tenant: Tenant) =>
  JSON.stringify({
    items: await tenantPartition(tenant.tenantId),
    inventory: await listInventory(tenant.region),
    sessions: checkoutSessionsOf(tenant.tenantId).map((s) => [s.id, s.status]),
    subscriptions: Object.values(emulator.state.subscriptions).length,
  });

/** The processor writes (anything but a read) made since the `from`th recorded call. */
const writesSince = (from: number) => emulator.calls.slice(from).filter((c) => c.method !== 'GET');

/**
 * A tenant with an open checkout for plus, whose processor customer also has a subscription in
 * `status` that no session of ours shows (made in the dashboard, a trial, a first payment
 * incomplete...); our records do not know it.
 */
const subscribedElsewhere = async (status: Status) => {
  const tenant = await api.readyTenant();
  expect((await checkout(tenant, 'plus')).status).toBe(200);
  const billing = await getBilling(tenant.tenantId);
  if (!billing?.customerId || !billing.checkout?.sessionId) throw new Error('no open checkout stored');
  emulator.subscribeCustomer(billing.customerId, priceOf('plus').id, status);
  return { tenant, sessionId: billing.checkout.sessionId };
};

const LIVE: Status[] = ['incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused'];
const ENDED: Status[] = ['canceled', 'incomplete_expired'];

describe('at most one live subscription: every live status counts, not only active', () => {
  /**
   * With a `status` subscription elsewhere, `request` is refused 409 subscription_exists with no
   * processor write, the open session still open and everything as it was; the tenant.
   */
  const refusedWritingNothing = async (status: Status, request: (tenant: Tenant) => Promise<CallResult>) => {
    const { tenant, sessionId } = await subscribedElsewhere(status);
    const before = await everything(tenant);
    const calls = emulator.calls.length;
    const refused = await request(tenant);
    expect([refused.status, refused.json.error?.code]).toEqual([409, 'subscription_exists']);
    expect(writesSince(calls)).toEqual([]);
    expect(emulator.state.checkoutSessions[sessionId]?.status).toBe('open');
    expect(await everything(tenant)).toBe(before);
    return tenant;
  };

  it.each(LIVE)(
    'a checkout while the customer has a %s subscription: 409 subscription_exists, nothing created or written',
    async (status) => {
      await refusedWritingNothing(status, (tenant) => checkout(tenant, 'pro'));
    },
  );

  it.each(LIVE)(
    'closing while the customer has a %s subscription: 409 subscription_exists, nothing closed or written',
    async (status) => {
      const tenant = await refusedWritingNothing(status, close);
      expect((await getTenant(tenant.tenantId))?.closeRequestedAt).toBeUndefined();
    },
  );

  it.each(ENDED)(
    'a %s subscription is no live one: the checkout for another Plan goes ahead, and so does closing',
    async (status) => {
      const { tenant, sessionId } = await subscribedElsewhere(status);
      const again = await checkout(tenant, 'pro');
      expect(again.status).toBe(200);
      expect(emulator.state.checkoutSessions[sessionId]?.status).toBe('expired');
      expect(checkoutSessionsOf(tenant.tenantId).filter((s) => s.status === 'open')).toHaveLength(1);
      const closed = await close(tenant);
      expect(closed.status).toBe(202);
      expect(checkoutSessionsOf(tenant.tenantId).filter((s) => s.status === 'open')).toEqual([]);
    },
  );
});

describe('a processor write applied whose answer was lost', () => {
  /** A Plus checkout in which every answer to `POST path` is lost (the write is applied at the processor). */
  const checkoutLosingAnswersOf = (tenant: Tenant, path: string) =>
    withFaults(
      emulator,
      [{ method: 'POST', path, kind: 'lose-answer', times: Number.POSITIVE_INFINITY }],
      () => checkout(tenant, 'plus'),
    );

  it('creating the customer: the retried checkout leaves exactly one processor customer, recorded and checked out with', async () => {
    const tenant = await api.readyTenant();
    const lost = await checkoutLosingAnswersOf(tenant, '/v1/customers');
    expect([lost.status, lost.json.error?.code]).toEqual([502, 'processor_unavailable']);
    // Applied at the processor, not known to us.
    expect(customersOf(tenant.tenantId)).toHaveLength(1);
    expect((await getBilling(tenant.tenantId))?.customerId).toBeUndefined();

    const retried = await checkout(tenant, 'plus');
    expect(retried.status).toBe(200);
    const customers = customersOf(tenant.tenantId);
    expect(customers).toHaveLength(1);
    const billing = await getBilling(tenant.tenantId);
    expect(billing?.customerId).toBe(customers[0]?.id);
    expect(emulator.state.checkoutSessions[billing?.checkout?.sessionId ?? '']?.customer).toBe(
      customers[0]?.id,
    );
    const creations = emulator.calls.filter(
      (c) =>
        c.method === 'POST' &&
        c.path === '/v1/customers' &&
        (c.params.metadata as Record<string, string> | undefined)?.tenantId === tenant.tenantId,
    );
    expect(creations.length).toBeGreaterThan(1);
    expect(new Set(creations.map((c) => c.idempotencyKey))).toEqual(new Set([`customer:${tenant.tenantId}`]));
  });

  it('creating the Checkout Session: the retried checkout leaves exactly one session that can be paid, the one recorded', async () => {
    const tenant = await api.readyTenant();
    const lost = await checkoutLosingAnswersOf(tenant, '/v1/checkout/sessions');
    expect(lost.status).toBe(502);
    expect(checkoutSessionsOf(tenant.tenantId).filter((s) => s.status === 'open')).toHaveLength(1);

    const retried = await checkout(tenant, 'plus');
    expect(retried.status).toBe(200);
    const open = checkoutSessionsOf(tenant.tenantId).filter((s) => s.status === 'open');
    expect(open.map((s) => s.id)).toEqual([(await getBilling(tenant.tenantId))?.checkout?.sessionId]);
    expect(customersOf(tenant.tenantId)).toHaveLength(1);
  });

  it('creating the Checkout Session, and the tenant does not come back: the sweep expires the session a minute later', async () => {
    const tenant = await api.readyTenant();
    const lost = await checkoutLosingAnswersOf(tenant, '/v1/checkout/sessions');
    expect(lost.status).toBe(502);
    expect(checkoutSessionsOf(tenant.tenantId).map((s) => s.status)).toEqual(['open']);
    api.clock.advance(61);
    await api.sweep();
    expect(checkoutSessionsOf(tenant.tenantId).map((s) => s.status)).toEqual(['expired']);
    expect((await listInventory(tenant.region)).reservations).toEqual([]);
  });
});

describe('every processor write these flows made', () => {
  it('carried one of our keys, never only the one the SDK makes up for its own retries', () => {
    // A preview is a POST that writes nothing (see test/unit/processor-write-keys.test.ts).
    const writes = emulator.calls.filter(
      (c) => c.method !== 'GET' && c.path !== '/v1/invoices/create_preview',
    );
    expect(writes.length).toBeGreaterThan(20);
    const unkeyed = writes.filter(
      (c) => !c.idempotencyKey || c.idempotencyKey.startsWith('stripe-node-retry-'),
    );
    expect(unkeyed.map((c) => `${c.method} ${c.path}`)).toEqual([]);
  });
});
