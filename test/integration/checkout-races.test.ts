import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimCheckout, getBilling, recordCheckoutSession } from '#store/billing.ts';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { getTenant, requestClose } from '#store/tenants.ts';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import type { ProcessorFault } from '../../lib/local/processor/http.ts';
import { regionWithPlaces, type TestControlPlane, testGateway, uniqueRegion } from '../support/gateway.ts';
import { TEST_CARDS } from '../support/hosted-pages.ts';

/**
 * The first checkout and the close of an unpaid account when something happens between their
 * reads and their writes: another request's claim, a payment on the page, a processor failure,
 * a live subscription no recorded session shows. Each answer is ours, and a refusal leaves the
 * tenant's open checkout as it was.
 */

let api: TestControlPlane;
let emulator: ProcessorEmulator;
beforeAll(async () => {
  api = await testGateway({ processor: true });
  emulator = api.emulator as ProcessorEmulator;
});
afterAll(async () => {
  await api.stop();
});

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;
const checkout = (tenant: Tenant, plan: string) =>
  api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan } });
const close = (tenant: Tenant) => api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken });
const sessionIdOf = (url: string) => new URL(url).pathname.split('/').at(-1) as string;
const statusOf = (sessionId: string) => emulator.state.checkoutSessions[sessionId]?.status;
const sessionsOf = (tenantId: string) =>
  Object.values(emulator.state.checkoutSessions).filter((s) => s.clientReferenceId === tenantId);

/** A tenant with an open checkout for `plan`: its processor session and stored attempt. */
const withOpenCheckout = async (plan: string, region?: string) => {
  const tenant = await api.readyTenant(region);
  const response = await checkout(tenant, plan);
  expect(response.status).toBe(200);
  const stored = (await getBilling(tenant.tenantId))?.checkout;
  if (!stored?.sessionId || !stored.attemptId) throw new Error('no open checkout stored');
  return {
    tenant,
    url: response.json.url as string,
    sessionId: stored.sessionId,
    attemptId: stored.attemptId,
  };
};

/** Pays a session on its page, as the tenant's browser would (the processor creates the subscription). */
const pay = (sessionId: string) => {
  emulator.payCheckout(sessionId, TEST_CARDS.succeeds);
  const subscription = emulator.state.checkoutSessions[sessionId]?.subscription;
  if (!subscription) throw new Error(`paying ${sessionId} made no subscription`);
  return subscription;
};

/**
 * `hook` runs when our request next lists the customer's subscriptions at the processor (a fault
 * that fails nothing: the request then goes on with what the processor holds by then).
 */
const whileListingSubscriptions = (hook: Pick<ProcessorFault, 'before' | 'onHit'>) =>
  emulator.faults.push({ method: 'GET', path: '/v1/subscriptions', kind: 'none', ...hook });

/** A session of the customer that our records do not hold (another tab's), paid: a live subscription. */
const paidElsewhere = (customerId: string) => {
  const price = Object.values(emulator.state.prices).find((p) => p.lookupKey === 'stack_plan_plus_monthly');
  const session = emulator.route('POST', '/v1/checkout/sessions', {
    mode: 'subscription',
    customer: customerId,
    line_items: [{ price: price?.id ?? '', quantity: '1' }],
    success_url: 'https://app.test/',
    expires_at: String(Math.floor(api.clock.now().getTime() / 1000) + 3600),
  }) as { id: string };
  return pay(session.id);
};

describe('another request claims the checkout between our read and our claim', () => {
  /**
   * The tenant has an open `plus` checkout and asks for `pro`; while our request asks the
   * processor about the customer's subscriptions (after its read, before its claim), another
   * request's write lands: `write` gets the attempt it replaces.
   */
  const raced = async (write: (tenantId: string, replacing: string) => Promise<void>) => {
    const open = await withOpenCheckout('plus');
    whileListingSubscriptions({ before: () => write(open.tenant.tenantId, open.attemptId) });
    const response = await checkout(open.tenant, 'pro');
    return { ...open, response };
  };
  const otherClaim = (tenantId: string, replacing: string, plan: 'plus' | 'pro' | 'standard') => {
    const now = api.clock.now();
    return claimCheckout(
      tenantId,
      { attemptId: 'other-request', plan, expiresAt: new Date(now.getTime() + 31 * 60_000) },
      now,
      replacing,
    );
  };

  it('still being prepared: 409 checkout_in_progress, and our request wrote nothing', async () => {
    const { tenant, sessionId, response } = await raced(async (tenantId, replacing) => {
      expect(await otherClaim(tenantId, replacing, 'pro')).toBe(true);
    });
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('checkout_in_progress');
    expect(statusOf(sessionId)).toBe('open');
    expect(sessionsOf(tenant.tenantId)).toHaveLength(1);
    expect((await getBilling(tenant.tenantId))?.checkout).toMatchObject({
      attemptId: 'other-request',
      state: 'creating',
    });
  });

  it('already open for the same Plan: its url is the answer', async () => {
    const other = { id: 'cs_other_request', url: 'https://checkout.test/pay/cs_other_request' };
    const { tenant, sessionId, response } = await raced(async (tenantId, replacing) => {
      expect(await otherClaim(tenantId, replacing, 'pro')).toBe(true);
      await recordCheckoutSession(tenantId, 'other-request', other);
    });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ url: other.url });
    expect(statusOf(sessionId)).toBe('open');
    expect(sessionsOf(tenant.tenantId)).toHaveLength(1);
  });

  it('already open for another Plan: 409 checkout_in_progress, its url is not given for this Plan', async () => {
    const other = { id: 'cs_other_plan', url: 'https://checkout.test/pay/cs_other_plan' };
    const { tenant, response } = await raced(async (tenantId, replacing) => {
      expect(await otherClaim(tenantId, replacing, 'standard')).toBe(true);
      await recordCheckoutSession(tenantId, 'other-request', other);
    });
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('checkout_in_progress');
    expect(sessionsOf(tenant.tenantId)).toHaveLength(1);
    expect((await getBilling(tenant.tenantId))?.checkout).toMatchObject({ plan: 'standard', url: other.url });
  });
});

describe('a payment on the page between our reads', () => {
  it('a checkout for another Plan finds the open session paid as it expires it: 409, no new session, the place kept', async () => {
    const region = await regionWithPlaces(api.clock, { a: { plus: 1, pro: 1 } });
    const open = await withOpenCheckout('plus', region);
    // Paid between the list of open sessions and their expiry; the subscription it made has
    // already ended (canceled at once), so only the session tells that the tenant paid.
    emulator.faults.push({
      method: 'GET',
      path: '/v1/checkout/sessions',
      kind: 'none',
      onHit: () => {
        const subscription = pay(open.sessionId);
        emulator.route('DELETE', `/v1/subscriptions/${subscription}`, {});
      },
    });
    const response = await checkout(open.tenant, 'pro');
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('subscription_exists');
    expect(sessionsOf(open.tenant.tenantId)).toHaveLength(1);
    expect((await listInventory(region)).reservations.map((r) => r.plan)).toEqual(['plus']);
  });

  it('a repeated checkout finds its session paid even when the subscription has already ended: 409', async () => {
    const open = await withOpenCheckout('plus');
    emulator.route('DELETE', `/v1/subscriptions/${pay(open.sessionId)}`, {});
    const response = await checkout(open.tenant, 'plus');
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('subscription_exists');
    expect(sessionsOf(open.tenant.tenantId)).toHaveLength(1);
  });

  it('closing finds the recorded session paid as it expires it: 409 subscription_exists, nothing closed', async () => {
    const open = await withOpenCheckout('plus');
    // Paid after the close looked for a live subscription, before it expired the session.
    whileListingSubscriptions({ onHit: () => void pay(open.sessionId) });
    const response = await close(open.tenant);
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('subscription_exists');
    expect((await getTenant(open.tenant.tenantId))?.closeRequestedAt).toBeUndefined();
    expect((await getBilling(open.tenant.tenantId))?.checkout).toMatchObject({ attemptId: open.attemptId });
  });
});

describe('a live subscription at the processor that no recorded session shows', () => {
  it('a checkout for another Plan is refused before any write: the open session stays open and recorded', async () => {
    const open = await withOpenCheckout('plus');
    const customerId = (await getBilling(open.tenant.tenantId))?.customerId as string;
    paidElsewhere(customerId);
    const response = await checkout(open.tenant, 'pro');
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('subscription_exists');
    expect(statusOf(open.sessionId)).toBe('open');
    expect((await getBilling(open.tenant.tenantId))?.checkout).toMatchObject({
      attemptId: open.attemptId,
      plan: 'plus',
      state: 'open',
    });
  });

  it('closing is refused: 409 subscription_exists, the open session left as it was', async () => {
    const open = await withOpenCheckout('plus');
    paidElsewhere((await getBilling(open.tenant.tenantId))?.customerId as string);
    const response = await close(open.tenant);
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('subscription_exists');
    expect(statusOf(open.sessionId)).toBe('open');
    expect((await getTenant(open.tenant.tenantId))?.closeRequestedAt).toBeUndefined();
  });
});

describe('the processor fails during the checkout', () => {
  /** A first checkout whose Checkout Session the processor fails to create (every retry too). */
  const failedCheckout = async () => {
    const region = uniqueRegion();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'plus', total: 1 }, api.clock.now());
    const tenant = await api.readyTenant(region);
    emulator.faults.push({ method: 'POST', path: '/v1/checkout/sessions', kind: 'unavailable', times: 10 });
    const before = api.clock.now().getTime();
    const response = await checkout(tenant, 'plus');
    const after = api.clock.now().getTime();
    emulator.faults.length = 0;
    return { tenant, region, response, before, after };
  };

  it('creating the session: 502, the place released, the attempt cleared, the sweep to look within a minute', async () => {
    const { tenant, region, response, before, after } = await failedCheckout();
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('processor_unavailable');
    expect((await listInventory(region)).reservations).toEqual([]);
    const billing = await getBilling(tenant.tenantId);
    expect(billing?.checkout).toBeUndefined();
    expect(billing?.customerId).toBeDefined();
    // A session the processor may have created after we gave up: the sweep looks a minute later.
    const dueAt = Date.parse((await getTenant(tenant.tenantId))?.dueAt ?? '');
    expect(dueAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(dueAt).toBeLessThanOrEqual(after + 60_000);
  });

  it('afterwards the tenant checks out again with its customer, or closes its account', async () => {
    const first = await failedCheckout();
    const again = await checkout(first.tenant, 'plus');
    expect(again.status).toBe(200);
    const second = await failedCheckout();
    const closed = await close(second.tenant);
    expect(closed.status).toBe(202);
    expect((await getTenant(second.tenant.tenantId))?.closeRequestedAt).toBeDefined();
  });

  it('expiring the earlier session: 502, and no session for the new Plan', async () => {
    const open = await withOpenCheckout('plus');
    emulator.faults.push({
      method: 'POST',
      path: `/v1/checkout/sessions/${open.sessionId}/expire`,
      kind: 'unavailable',
      times: 10,
    });
    const response = await checkout(open.tenant, 'pro');
    emulator.faults.length = 0;
    expect(response.status).toBe(502);
    expect(sessionsOf(open.tenant.tenantId)).toHaveLength(1);
    expect(statusOf(open.sessionId)).toBe('open');
    expect((await getBilling(open.tenant.tenantId))?.checkout).toBeUndefined();
  });
});

describe('the checkout refused for capacity with an open checkout for another Plan', () => {
  it('409 no_capacity in our words, and the open checkout is left as it was', async () => {
    const region = await regionWithPlaces(api.clock, { a: { standard: 1, plus: 1 } });
    const open = await withOpenCheckout('plus', region);
    const response = await checkout(open.tenant, 'pro');
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ reason: 'no_capacity', availablePlans: ['standard', 'plus'] });
    expect(response.json.error.message).toBe(
      'The pro Plan cannot be placed in your Home Region now. Choose one of availablePlans, or join the waitlist for pro.',
    );
    expect(statusOf(open.sessionId)).toBe('open');
    expect((await getBilling(open.tenant.tenantId))?.checkout).toMatchObject({
      attemptId: open.attemptId,
      state: 'open',
    });
  });
});

describe('the return addresses', () => {
  it('join the app address with & when it already has a query', async () => {
    const saved = process.env.TENANT_APP_URL;
    process.env.TENANT_APP_URL = 'https://app.test/?from=console';
    try {
      const tenant = await api.readyTenant();
      const response = await checkout(tenant, 'plus');
      const session = emulator.state.checkoutSessions[sessionIdOf(response.json.url)];
      expect(session?.successUrl).toBe('https://app.test/?from=console&checkout=complete');
      expect(session?.cancelUrl).toBe('https://app.test/?from=console&checkout=cancelled');
    } finally {
      process.env.TENANT_APP_URL = saved;
    }
  });
});

describe('closing while the tenant stops being provisioning', () => {
  it('409 close_in_portal, asking to reload', async () => {
    const open = await withOpenCheckout('plus');
    // After this request read the billing record, another close lands and the sweep moves the
    // tenant to decommissioning.
    whileListingSubscriptions({
      before: async () => {
        expect(await requestClose(open.tenant.tenantId, api.clock.now())).toBe(true);
        await api.sweep();
        expect((await getTenant(open.tenant.tenantId))?.billingState).toBe('decommissioning');
      },
    });
    const response = await close(open.tenant);
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject({
      code: 'close_in_portal',
      message: 'This account is no longer provisioning: reload and try again.',
    });
  });
});
