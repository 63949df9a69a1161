import { describe, expect, it } from 'vitest';
import { claimCheckout, getBilling, STALE_CLAIM_MS } from '#store/billing.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';

/**
 * The first checkout's refusals, each with its own code and words and nothing written, and what
 * the Checkout Session is created with: one customer per tenant, the administrator's address,
 * the return addresses.
 */

const { api, emulator } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;
const checkout = (tenant: Tenant, plan = 'plus') =>
  api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan } });
const sessionOf = (url: string) => {
  const session = emulator.state.checkoutSessions[new URL(url).pathname.split('/').at(-1) as string];
  if (!session) throw new Error(`no session behind ${url}`);
  return session;
};
const sessionsOf = (tenantId: string) =>
  Object.values(emulator.state.checkoutSessions).filter((s) => s.clientReferenceId === tenantId);
const customersOf = (tenantId: string) =>
  Object.values(emulator.state.customers).filter((c) => c.metadata.tenantId === tenantId);

describe('a tenant that already has a subscription', () => {
  it('is refused a second one: 409 subscription_exists, saying what to do instead', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const response = await checkout(tenant as Tenant, 'pro');
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject({
      code: 'subscription_exists',
      message: 'This tenant already has a subscription: add Stacks or change a Plan instead.',
    });
  });

  it('paid on the page but not yet seen by the sweep: a repeated checkout finds the session paid', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    const again = await checkout(tenant, 'plus');
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('subscription_exists');
  });

  it('ended at the processor, the sweep not told yet: still refused (our record has the subscription), nothing written', async () => {
    const tenant = (await api.subscribe({ plan: 'plus' })) as Tenant;
    // Past the first checkout's lifetime: its stored session no longer answers for the tenant.
    api.clock.advance(32 * 60);
    const subscription = Object.values(emulator.state.subscriptions).find(
      (s) => s.metadata.tenantId === tenant.tenantId,
    );
    emulator.route('DELETE', `/v1/subscriptions/${subscription?.id}`, {});
    const before = await getBilling(tenant.tenantId);
    const response = await checkout(tenant, 'plus');
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('subscription_exists');
    expect(await getBilling(tenant.tenantId)).toEqual(before);
    expect(sessionsOf(tenant.tenantId)).toHaveLength(1);
  });
});

describe('a tenant that is leaving', () => {
  it('once its administrator asked to close (before the sweep): 409 account_closing, as asked', async () => {
    const tenant = await api.readyTenant();
    expect((await api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken })).status).toBe(202);
    const response = await checkout(tenant);
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject({
      code: 'account_closing',
      message: 'This account is being closed, as its administrator asked: nothing new can be bought.',
    });
    expect((await getBilling(tenant.tenantId))?.checkout).toBeUndefined();
  });

  it('once decommissioning: 409 account_closing with what it may still do', async () => {
    const tenant = await api.readyTenant();
    await api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken });
    await api.sweep();
    const response = await checkout(tenant);
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('account_closing');
    expect(response.json.error.message).toMatch(/^This account is closing \(decommissioning\)/);
  });
});

describe('a checkout being prepared by another request', () => {
  it('is answered 409 checkout_in_progress until its claim is a minute old, then replaced', async () => {
    const tenant = await api.readyTenant();
    const now = api.clock.now();
    const claimed = await claimCheckout(
      tenant.tenantId,
      { attemptId: 'crashed-attempt', plan: 'plus', expiresAt: new Date(now.getTime() + 31 * 60_000) },
      now,
      undefined,
    );
    expect(claimed).toBe(true);
    const busy = await checkout(tenant, 'plus');
    expect(busy.status).toBe(409);
    expect(busy.json.error).toMatchObject({
      code: 'checkout_in_progress',
      message: 'A checkout for this tenant is being prepared; repeat the request in a few seconds.',
    });
    // Seconds short of a minute (the clock also runs in real time): still in progress.
    api.clock.advance(STALE_CLAIM_MS / 1000 - 10);
    expect((await checkout(tenant, 'plus')).status).toBe(409);
    // A minute old: a crashed request's claim, replaced.
    api.clock.advance(10);
    const replaced = await checkout(tenant, 'plus');
    expect(replaced.status).toBe(200);
    expect((await getBilling(tenant.tenantId))?.checkout).toMatchObject({ state: 'open', plan: 'plus' });
  });

  it('a claim past its checkout lifetime is replaced at once, however recent (as the claim itself allows)', async () => {
    const tenant = await api.readyTenant();
    const now = api.clock.now();
    const claimed = await claimCheckout(
      tenant.tenantId,
      { attemptId: 'lapsed-attempt', plan: 'plus', expiresAt: new Date(now.getTime() - 1000) },
      now,
      undefined,
    );
    expect(claimed).toBe(true);
    const response = await checkout(tenant, 'plus');
    expect(response.status).toBe(200);
    const stored = (await getBilling(tenant.tenantId))?.checkout;
    expect(stored).toMatchObject({ state: 'open', plan: 'plus', url: response.json.url });
    expect(stored?.attemptId).not.toBe('lapsed-attempt');
  });
});

describe('the Checkout Session', () => {
  it("is made for one customer per tenant, with the administrator's address, and returns to the app", async () => {
    const tenant = await api.readyTenant();
    const first = await checkout(tenant, 'plus');
    const second = await checkout(tenant, 'pro');
    expect(second.status).toBe(200);
    const customers = customersOf(tenant.tenantId);
    expect(customers).toHaveLength(1);
    expect(customers[0]?.email).toBe(`${tenant.login.toLowerCase()}@users.code-host.test`);
    const session = sessionOf(second.json.url);
    expect(session.customer).toBe(customers[0]?.id);
    expect(session.successUrl).toBe(`${process.env.TENANT_APP_URL}?checkout=complete`);
    expect(session.cancelUrl).toBe(`${process.env.TENANT_APP_URL}?checkout=cancelled`);
    expect(sessionOf(first.json.url).status).toBe('expired');
  });
});

describe('closing an account that never paid', () => {
  const close = (tenant: { sessionToken: string }) =>
    api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken });

  it('with an open checkout: expires the session, releases the place, then closes; the sweep makes it leave', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    const closed = await close(tenant);
    expect(closed.status).toBe(202);
    expect(closed.json).toMatchObject({
      message:
        'The account closes within a minute (billing state decommissioning). Nothing was charged; the slug stays taken.',
    });
    expect(sessionOf(json.url).status).toBe('expired');
    expect((await getBilling(tenant.tenantId))?.checkout).toBeUndefined();
  });

  it('paid on the page meanwhile: 409 subscription_exists, to leave through the portal', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant, 'plus');
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    const refused = await close(tenant);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({
      code: 'subscription_exists',
      message:
        'A checkout of this account has been paid: it becomes active within a minute. To leave, cancel in the billing portal.',
    });
  });

  it('with a subscription: 409 close_in_portal; once leaving: account_closing', async () => {
    const tenant = (await api.subscribe({ plan: 'standard' })) as Tenant;
    const refused = await close(tenant);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({
      code: 'close_in_portal',
      message: 'This account has a subscription: cancel it in the billing portal; the account then closes.',
    });
    const leaving = await api.readyTenant();
    await close(leaving);
    await api.sweep();
    expect((await close(leaving)).json.error.code).toBe('account_closing');
  });
});
