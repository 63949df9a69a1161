import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getBilling } from '#store/billing.ts';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { listStacks } from '#store/stacks.ts';
import { getTenant } from '#store/tenants.ts';
import { syncCatalog } from '../../functions/ports/processor/catalog.ts';
import { deliverWebhooksTo } from '../../lib/local/processor/local.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { type TestControlPlane, uniqueRegion } from '../support/gateway.ts';
import { cancelInPortal, payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { monthlyPrice, processorView } from '../support/processor-view.ts';
import { setStored, storedSnapshot, tenantPartition } from '../support/stored.ts';
import { deliverSigned, eventPayload } from '../support/webhooks.ts';

/**
 * Money safety: leaving stops billing, one subscription per tenant, capacity that matches
 * payment, graces from the processor's time, and refused requests that write nothing. Each test
 * checks our stored state and the calls we made to the processor emulator.
 */

const { api, emulator } = gatewayForFile({ processor: true });

const DAY = 86_400;
type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const token = async (tenant: { login: string }) => (await api.signIn(tenant.login)).sessionToken;
const as = async (tenant: { login: string }, method: string, path: string, body?: unknown) =>
  api.call(method, path, { token: await token(tenant), ...(body === undefined ? {} : { body }) });

const { subscriptionsOf, subscriptionOf, customerInvoicesOf, chargesOf } = processorView(emulator);
const sessionIdOf = (url: string) => new URL(url).pathname.split('/').at(-1) as string;

const checkout = async (tenant: Tenant, plan = 'plus') =>
  api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan } });

/** A tenant that checked out and paid; the sweep has made it active. */
const subscribed = async (plan = 'plus', card: string = TEST_CARDS.succeeds) => {
  const tenant = await api.subscribe({ plan, card });
  expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
  return tenant;
};

const portalOf = async (tenant: Tenant) =>
  (await as(tenant, 'POST', '/v1/billing/portal')).json.url as string;

describe('leaving stops billing', () => {
  it('portal cancel: decommissioning at once, the Stacks serve until the paid period ends, a cancel taken back is made again, nothing is billed after, teardown frees the place', async () => {
    const tenant = await subscribed('plus');
    const subscription = subscriptionOf(tenant.tenantId);
    await api.call('POST', '/v1/billing/waitlist', { token: tenant.sessionToken, body: { plan: 'pro' } });
    await cancelInPortal(await portalOf(tenant));
    await api.sweep();

    const status = (await as(tenant, 'GET', '/v1/billing/status')).json;
    expect(status.billingState).toBe('decommissioning');
    expect(status.history.at(-1)).toMatchObject({ to: 'decommissioning', reason: 'cancelled_in_portal' });
    const paidThrough = new Date(subscription.currentPeriodEnd * 1000).toISOString();
    expect(status.closing).toMatchObject({
      reason: 'cancelled_in_portal',
      teardownAt: paidThrough,
      stacksServeUntilTeardown: true,
      billingStopped: false,
      tornDown: false,
    });
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.stack(tenant.tenantId, 'primary') }),
    );
    expect(Item?.desiredState).toMatchObject({
      lifecycle: 'decommissioning',
      admission: 'open',
      teardown_at: paidThrough,
    });
    // Its waitlist entries are gone.
    expect(
      (await tenantPartition(tenant.tenantId)).filter((i) => String(i.SK).startsWith('WAITLIST#')),
    ).toEqual([]);

    // Nothing new: checkout, portal and waitlist say why, with the code of a closing account.
    for (const [method, path, body] of [
      ['POST', '/v1/billing/checkout', { plan: 'plus' }],
      ['POST', '/v1/billing/portal', undefined],
      ['POST', '/v1/billing/waitlist', { plan: 'plus' }],
    ] as const) {
      const refused = await as(tenant, method, path, body);
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe('account_closing');
      expect(refused.json.error.message).toContain('export');
    }

    // Someone takes the cancel back at the processor: the sweep makes it again.
    emulator.route('POST', `/v1/subscriptions/${subscription.id}`, { cancel_at_period_end: 'false' });
    expect(subscriptionOf(tenant.tenantId).cancelAtPeriodEnd).toBe(false);
    await api.sweep();
    expect(subscriptionOf(tenant.tenantId).cancelAtPeriodEnd).toBe(true);
    const recancel = emulator.calls.filter(
      (c) => c.method === 'POST' && c.path === `/v1/subscriptions/${subscription.id}` && c.idempotencyKey,
    );
    expect(recancel).toHaveLength(1);
    expect(recancel[0]?.idempotencyKey).toMatch(/^cancel-at-period-end:/);
    // Taken back once more: a new key, so the cancel is made again rather than replayed.
    api.clock.advance(60);
    emulator.route('POST', `/v1/subscriptions/${subscription.id}`, { cancel_at_period_end: 'false' });
    await api.sweep();
    expect(subscriptionOf(tenant.tenantId).cancelAtPeriodEnd).toBe(true);

    // The paid period ends: no renewal invoice, no charge; the Stack is torn down and its place freed.
    const invoices = customerInvoicesOf(subscription.customer).length;
    const charges = chargesOf(subscription.customer).length;
    api.clock.advance(32 * DAY);
    await api.sweep();
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
    expect((await listStacks(tenant.tenantId)).map((s) => s.lifecycle)).toEqual(['torn_down']);
    const slot = (await listInventory(tenant.region)).slots.find((s) => s.plan === 'plus');
    expect(slot?.used).toBe(0);
    api.clock.advance(62 * DAY);
    await api.sweep();
    expect(customerInvoicesOf(subscription.customer)).toHaveLength(invoices);
    expect(chargesOf(subscription.customer)).toHaveLength(charges);
    const after = (await as(tenant, 'GET', '/v1/billing/status')).json;
    expect(after.closing).toMatchObject({ billingStopped: true, tornDown: true });
  });

  it('an operator cancel at the processor is recorded as such, and leaves with the export window', async () => {
    const tenant = await subscribed('standard');
    const subscription = subscriptionOf(tenant.tenantId);
    emulator.route('DELETE', `/v1/subscriptions/${subscription.id}`, {});
    await api.sweep();
    const status = (await as(tenant, 'GET', '/v1/billing/status')).json;
    expect(status.history.at(-1)).toMatchObject({ to: 'decommissioning', reason: 'cancelled_by_operator' });
    expect(Date.parse(status.closing.teardownAt) - Date.parse(status.history.at(-1).at)).toBe(7 * DAY * 1000);
    expect(status.closing.billingStopped).toBe(true);
  });

  it('a provisioning tenant that never paid closes its own account: its checkout expired, its place released, its slug kept', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'pro');
    const sessionId = sessionIdOf(json.url);
    expect((await listInventory(tenant.region)).reservations).toHaveLength(1);

    const member = await api.call('POST', '/_local/members', {
      token: tenant.sessionToken,
      body: { login: `${tenant.login}-m` },
    });
    expect(member.status).toBeLessThan(300);
    const memberSession = await api.signIn(`${tenant.login}-m`);
    const byMember = await api.call('POST', '/v1/tenant/close', { token: memberSession.sessionToken });
    expect(byMember.status).toBe(403);

    const closed = await api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken });
    expect(closed.status).toBe(202);
    expect(emulator.state.checkoutSessions[sessionId]?.status).toBe('expired');
    expect(
      emulator.calls.some(
        (c) =>
          c.path === `/v1/checkout/sessions/${sessionId}/expire` &&
          c.idempotencyKey === `expire:${sessionId}`,
      ),
    ).toBe(true);
    expect((await listInventory(tenant.region)).reservations).toEqual([]);
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).not.toBe(303);

    await api.sweep();
    const status = (await as(tenant, 'GET', '/v1/billing/status')).json;
    expect(status.billingState).toBe('decommissioning');
    expect(status.history.at(-1)).toMatchObject({ from: 'provisioning', reason: 'closed_by_tenant' });
    // The slug stays taken forever.
    const other = await api.signIn(`${tenant.login}-other`);
    const taken = await api.call('POST', '/v1/tenant/slug', {
      token: other.sessionToken,
      body: { slug: tenant.slug },
    });
    expect(taken.status).toBe(409);
  });

  it('an active tenant cannot close that way: 409 close_in_portal, nothing written', async () => {
    const tenant = await subscribed('plus');
    const before = await storedSnapshot(tenant, { inventory: true });
    const refused = await as(tenant, 'POST', '/v1/tenant/close');
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('close_in_portal');
    expect(await storedSnapshot(tenant, { inventory: true })).toBe(before);
  });
});

describe('one subscription per tenant', () => {
  it('a checkout after our attempt lapsed asks the processor first: a session paid just before expiry is not paid twice', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    emulator.setWebhook(undefined); // the completion event is still on its way
    try {
      api.clock.advance(30 * 60);
      expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
      api.clock.advance(2 * 60);
      const sessionsBefore = Object.keys(emulator.state.checkoutSessions).length;
      const again = await checkout(tenant, 'plus');
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('subscription_exists');
      expect(Object.keys(emulator.state.checkoutSessions)).toHaveLength(sessionsBefore);
    } finally {
      deliverWebhooksTo(emulator, api.apiUrl);
    }
    // Even with the event lost, the sweep finds the subscription from the processor.
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
    expect(subscriptionsOf(tenant.tenantId).filter((s) => s.status !== 'canceled')).toHaveLength(1);
  });

  it('two tabs paid: the sweep ends the second subscription, refunds its charge once and records why', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    const first = emulator.state.checkoutSessions[sessionIdOf(json.url)];
    if (!first) throw new Error('no session');
    // A second tab: another open session for the same customer (created before ours expired it).
    const second = emulator.route('POST', '/v1/checkout/sessions', {
      mode: 'subscription',
      customer: first.customer,
      line_items: [{ price: first.lineItems[0]?.price ?? '', quantity: '1' }],
      subscription_data: { metadata: { tenantId: tenant.tenantId, plan: 'plus' } },
      success_url: 'https://app.test/',
    }) as { url: string };
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    expect((await payOnCheckout(second.url, TEST_CARDS.succeeds)).status).toBe(303);
    expect(subscriptionsOf(tenant.tenantId).filter((s) => s.status === 'active')).toHaveLength(2);

    await api.sweep();
    const live = subscriptionsOf(tenant.tenantId).filter((s) => s.status !== 'canceled');
    expect(live).toHaveLength(1);
    const billing = await getBilling(tenant.tenantId);
    expect(live[0]?.id).toBe(billing?.subscriptionId);
    const ended = subscriptionsOf(tenant.tenantId).find((s) => s.status === 'canceled');
    expect(ended?.cancellationComment).toBe('stack-control-plane:duplicate_subscription');
    expect(billing?.subscriptionIds.sort()).toEqual(
      subscriptionsOf(tenant.tenantId)
        .map((s) => s.id)
        .sort(),
    );
    expect(billing?.duplicates[ended?.id ?? '']).toMatchObject({ refundedAmount: 5000, refunds: 1 });

    // The processor lists the one refund, made with our per-payment key.
    const intent = Object.values(emulator.state.paymentIntents).find(
      (p) => emulator.state.invoices[p.invoice]?.subscription === ended?.id,
    );
    const refunds = emulator.route('GET', '/v1/refunds', { payment_intent: intent?.id ?? '' }) as {
      data: { amount: number }[];
    };
    expect(refunds.data.map((r) => r.amount)).toEqual([5000]);
    expect(
      emulator.calls
        .filter((c) => c.method === 'POST' && c.path === '/v1/refunds')
        .map((c) => c.idempotencyKey),
    ).toContain(`refund:${intent?.id}`);

    // A rerun refunds nothing twice.
    await api.sweep();
    api.clock.advance(DAY + 60);
    await api.sweep();
    const again = emulator.route('GET', '/v1/refunds', { payment_intent: intent?.id ?? '' }) as {
      data: unknown[];
    };
    expect(again.data).toHaveLength(1);
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
  });
});

describe('capacity matches payment', () => {
  it('many tenants racing for the last places, some paying late: used never exceeds total, every active tenant holds one place', async () => {
    const region = uniqueRegion();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'standard', total: 3 }, api.clock.now());
    const tenants = await Promise.all(Array.from({ length: 6 }, () => api.readyTenant(region)));
    const answers = await Promise.all(tenants.map((t) => checkout(t, 'standard')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(3);
    const winners = tenants.filter((_, i) => answers[i]?.status === 200);
    const losers = tenants.filter((_, i) => answers[i]?.status === 409);
    const urls = answers.filter((a) => a.status === 200).map((a) => a.json.url as string);

    const invariant = async () => {
      const inventory = await listInventory(region);
      for (const slot of inventory.slots) {
        const held = inventory.reservations.filter(
          (r) => r.location === slot.location && r.plan === slot.plan,
        );
        expect(slot.used).toBeLessThanOrEqual(slot.total);
        expect(slot.used + held.length).toBeLessThanOrEqual(slot.total);
      }
      const active = [];
      for (const t of tenants) if ((await getTenant(t.tenantId))?.billingState === 'active') active.push(t);
      for (const t of active) {
        const stacks = await listStacks(t.tenantId);
        expect(stacks).toHaveLength(1);
        expect(stacks[0]?.placed).toBe(true);
        expect(stacks[0]?.location).toBe(`${region}-a`);
      }
      expect(inventory.slots[0]?.used).toBe(active.length);
    };

    expect((await payOnCheckout(urls[0] as string, TEST_CARDS.succeeds)).status).toBe(303);
    await api.sweep();
    await invariant();
    api.clock.advance(30 * 60);
    emulator.setWebhook(undefined);
    expect((await payOnCheckout(urls[1] as string, TEST_CARDS.succeeds)).status).toBe(303);
    deliverWebhooksTo(emulator, api.apiUrl);
    api.clock.advance(2 * 60);
    // The late payer's place is still held; the never-payer's too, until the sweep has looked.
    for (const loser of losers) expect((await checkout(loser, 'standard')).status).toBe(409);
    await invariant();
    await api.sweep();
    await invariant();
    expect((await getTenant(winners[1]?.tenantId ?? ''))?.billingState).toBe('active');
    // The never-payer's session is expired and its place freed: exactly one loser gets it.
    const retries = await Promise.all(losers.map((l) => checkout(l, 'standard')));
    expect(retries.filter((r) => r.status === 200)).toHaveLength(1);
    await invariant();
  });
});

describe('graces start when the processor says; lost events are caught by the daily re-check', () => {
  it('a failed renewal whose events were lost is found within a day, its grace from the failure', async () => {
    const tenant = await subscribed('plus', TEST_CARDS.failsLater);
    const stored = await getTenant(tenant.tenantId);
    // Active tenants are looked at again within a day, event or not.
    expect(Date.parse(stored?.dueAt ?? '') - api.clock.now().getTime()).toBeGreaterThan(23 * 3600 * 1000);
    emulator.setWebhook(undefined);
    try {
      api.clock.advance(33 * DAY);
      await api.sweep();
    } finally {
      deliverWebhooksTo(emulator, api.apiUrl);
    }
    const status = (await as(tenant, 'GET', '/v1/billing/status')).json;
    expect(status.billingState).toBe('past-due');
    const renewal = subscriptionOf(tenant.tenantId).currentPeriodStart * 1000;
    expect(status.graceDeadline).toBe(new Date(renewal + 7 * DAY * 1000).toISOString());
  });

  it('an event that carries only a customer id finds its tenant', async () => {
    const tenant = await subscribed('standard');
    const customer = subscriptionOf(tenant.tenantId).customer;
    const before = await getTenant(tenant.tenantId);
    const payload = eventPayload(api, 'invoice.payment_failed', {
      id: 'in_customer_only',
      object: 'invoice',
      customer,
    });
    const delivered = await deliverSigned(api, payload);
    expect(delivered.status).toBe(200);
    const summary = await api.sweep();
    expect(summary.intake.unmatched).toBe(0);
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.processorEvent(JSON.parse(payload).id) }),
    );
    expect(Item?.tenantId).toBe(tenant.tenantId);
    expect((await getTenant(tenant.tenantId))?.version).toBeGreaterThan(before?.version ?? 0);
  });
});

describe('a refused request writes nothing', () => {
  it('a checkout for another Plan refused for capacity leaves the open checkout for the first Plan as it was', async () => {
    const region = uniqueRegion();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'standard', total: 1 }, api.clock.now());
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'pro', total: 0 }, api.clock.now());
    const tenant = await api.readyTenant(region);
    const { json } = await checkout(tenant, 'standard');
    const before = await storedSnapshot(tenant, { inventory: true });
    const callsBefore = emulator.calls.filter((c) => c.method !== 'GET').length;
    const refused = await checkout(tenant, 'pro');
    expect(refused.status).toBe(409);
    expect(refused.json.reason).toBe('no_capacity');
    expect(emulator.state.checkoutSessions[sessionIdOf(json.url)]?.status).toBe('open');
    expect(await storedSnapshot(tenant, { inventory: true })).toBe(before);
    expect(emulator.calls.filter((c) => c.method !== 'GET')).toHaveLength(callsBefore);
  });
});

describe('within the Lambda timeout', () => {
  it('a slow processor: checkout answers 502 before the 10 s timeout and releases its reservation', async () => {
    const tenant = await api.readyTenant();
    emulator.latencyMs = 3_000;
    const started = performance.now();
    let answer: Awaited<ReturnType<typeof checkout>>;
    try {
      answer = await checkout(tenant, 'plus');
    } finally {
      emulator.latencyMs = 0;
    }
    expect(performance.now() - started).toBeLessThan(9_000);
    expect(answer.status).toBe(502);
    expect(answer.json.error.code).toBe('processor_unavailable');
    expect((await listInventory(tenant.region)).reservations).toEqual([]);
    expect((await getBilling(tenant.tenantId))?.checkout).toBeUndefined();
  }, 20_000);
});

describe('a crashed checkout request', () => {
  it('leaves a claim that a retry a minute later replaces, instead of "in progress" for half an hour', async () => {
    const tenant = await api.readyTenant();
    const stale = new Date(api.clock.now().getTime() - 2 * 60_000).toISOString();
    await setStored(keys.billing(tenant.tenantId), {
      type: 'billing',
      tenantId: tenant.tenantId,
      checkout: {
        attemptId: 'crashed',
        plan: 'plus',
        state: 'creating',
        startedAt: stale,
        expiresAt: new Date(api.clock.now().getTime() + 29 * 60_000).toISOString(),
      },
    });
    const retried = await checkout(tenant, 'plus');
    expect(retried.status).toBe(200);
    expect((await getBilling(tenant.tenantId))?.checkout?.attemptId).not.toBe('crashed');
  });
});

describe('checkout addresses are built when served', () => {
  it('a repeated checkout answers the processor’s current address, not the one stored earlier (say, before a restart on another port)', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    await setStored(keys.billing(tenant.tenantId), { 'checkout.url': 'http://127.0.0.1:1/c/pay/stale' });
    const again = await checkout(tenant, 'plus');
    expect(again.status).toBe(200);
    expect(again.json.url).toBe(json.url);
    expect(again.json.url.startsWith(emulator.url)).toBe(true);
  });
});

describe('smaller defects', () => {
  it('a subscription on a price that is not one of our Plans is refused and stays due, never mapped to standard', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    const session = emulator.state.checkoutSessions[sessionIdOf(json.url)];
    const price = monthlyPrice(emulator, 'stack_plan_plus', 9900);
    if (!session) throw new Error('no session');
    session.lineItems = [{ price: price.id, quantity: 1 }];
    session.subscriptionMetadata = { tenantId: tenant.tenantId };
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    const summary = await api.sweep();
    expect(summary.failed).toBeGreaterThan(0);
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('provisioning');
    expect(await listStacks(tenant.tenantId)).toEqual([]);
  });

  it('the portal configuration is kept in line with the code', async () => {
    const ours = Object.values(emulator.state.portalConfigurations).find((c) => c.metadata.managed_by);
    if (!ours) throw new Error('no portal configuration');
    ours.subscriptionUpdate = true;
    ours.cancelMode = 'immediately';
    expect((await syncCatalog()).portal).toBe('updated');
    expect(ours).toMatchObject({
      subscriptionUpdate: false,
      cancelMode: 'at_period_end',
      invoiceHistory: true,
    });
    expect((await syncCatalog()).portal).toBe('unchanged');
  });
});
