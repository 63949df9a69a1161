import { describe, expect, it } from 'vitest';
import { getBilling } from '#store/billing.ts';
import { keys } from '#store/keys.ts';
import { listStacks } from '#store/stacks.ts';
import { getTenant, tenantIdOfSlug } from '#store/tenants.ts';
import { getUser } from '#store/users.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { environmentForFile, gatewayForFile } from '../support/file-gateway.ts';
import { moveToRegion, regionWithPlaces, type TestControlPlane, uniqueSlug } from '../support/gateway.ts';
import { cancelInPortal, payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { adminRequest, refusalOf } from '../support/money-back.ts';
import { processorView } from '../support/processor-view.ts';
import { setStored, tenantPartition } from '../support/stored.ts';

/**
 * Returning customers (issue 35, item 1) and the money-back refund only from `active` (item 3):
 * a person whose account left starts a new one with the same sign-in once the old one is torn
 * down; one transaction, one account per race, the old slug kept, no lock and no second refund
 * carried over, one live subscription per person, the old billing still readable.
 */

// No Open Signup: every first subscription would be founding, unless the person paid before.
environmentForFile({ OPEN_SIGNUP_AT: undefined, PLAN_PRICES: undefined });
const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);
const DAY_S = 86_400;
type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const lock = (token: string, slug: string) => api.call('POST', '/v1/tenant/slug', { token, body: { slug } });
const me = async (token: string) => (await api.call('GET', '/v1/me', { token })).json;
const portalOf = async (token: string) =>
  (await api.call('POST', '/v1/billing/portal', { token })).json.url as string;

/** A paying tenant that cancelled in the portal: decommissioning, serving until its paid period ends. */
const cancelled = async () => {
  const tenant = await api.subscribe({ plan: 'standard' });
  await cancelInPortal(await portalOf(tenant.sessionToken));
  await api.sweep();
  return tenant;
};

/** Time passes beyond the teardown; the sweep tears everything down. */
const tornDown = async (tenant: Tenant) => {
  const stored = await getTenant(tenant.tenantId);
  const teardownAt = Date.parse(stored?.teardownAt ?? '');
  api.clock.advance(Math.ceil((teardownAt - api.clock.now().getTime()) / 1000) + DAY_S);
  await api.sweep();
  await api.sweep();
  expect((await getTenant(tenant.tenantId))?.tornDownAt).toEqual(expect.any(String));
  // Sessions last less than the months travelled: sign in again, as the person would.
  return (await api.signIn(tenant.login)).sessionToken;
};

/** The new account's tenant gets a Home Region with places of its own, then checks out and pays. */
const payNewAccount = async (token: string, tenantId: string, plan = 'standard', promotionCode?: string) => {
  const region = await regionWithPlaces(api.clock, { a: { standard: 2, plus: 2, pro: 2 } });
  await moveToRegion(tenantId, region);
  const checkout = await api.call('POST', '/v1/billing/checkout', { token, body: { plan } });
  expect(checkout.status).toBe(200);
  expect((await payOnCheckout(checkout.json.url, TEST_CARDS.succeeds, promotionCode)).status).toBe(303);
  await api.sweep();
};

describe('coming back after leaving', { timeout: 120_000 }, () => {
  it('before teardown: 409 new_account_not_yet with the date, nothing written; after: the same login starts a new account, the old slug stays with the old one', async () => {
    const tenant = await cancelled();
    const stored = await getTenant(tenant.tenantId);
    const teardownAt = stored?.teardownAt;
    expect(teardownAt).toEqual(expect.any(String));

    const early = await me(tenant.sessionToken);
    expect(early.newAccount).toEqual({
      possible: false,
      possibleFrom: teardownAt,
      text: expect.stringContaining(`torn down on ${teardownAt}`),
    });
    const before = await tenantPartition(tenant.tenantId);
    const wanted = uniqueSlug('again');
    const tooSoon = await lock(tenant.sessionToken, wanted);
    expect(tooSoon.status).toBe(409);
    expect(tooSoon.json).toMatchObject({
      error: { code: 'new_account_not_yet' },
      newAccountFrom: teardownAt,
    });
    expect(tooSoon.json.error.message).toContain(String(teardownAt));
    // A refused request writes nothing: no slug claim, the person and the old tenant as they were.
    expect(await tenantIdOfSlug(wanted)).toBeUndefined();
    expect((await getUser(tenant.userId))?.tenantId).toBe(tenant.tenantId);
    expect(await tenantPartition(tenant.tenantId)).toEqual(before);

    const token = await tornDown(tenant);
    const other = (await api.signIn(tenant.login)).sessionToken;
    const now = await me(token);
    expect(now.newAccount).toMatchObject({ possible: true, text: expect.stringContaining('same sign-in') });
    // The old slug is the old account's for good.
    const old = await lock(token, tenant.slug);
    expect(old.status).toBe(409);
    expect(old.json.error).toMatchObject({
      code: 'slug_taken',
      message: expect.stringContaining('former account'),
    });

    const started = await lock(token, wanted);
    expect(started.status).toBe(200);
    expect(started.json).toEqual({ slug: wanted, stackName: `${wanted}.stacks.test`, newAccount: true });
    const newTenantId = await tenantIdOfSlug(wanted);
    expect(newTenantId).toEqual(expect.any(String));
    expect(newTenantId).not.toBe(tenant.tenantId);
    expect(await tenantIdOfSlug(tenant.slug)).toBe(tenant.tenantId);
    expect(await getTenant(newTenantId ?? '')).toMatchObject({
      billingState: 'provisioning',
      slug: wanted,
      returning: { previousTenantId: tenant.tenantId, previousSlug: tenant.slug, subscribedBefore: true },
    });
    // The same session now is the new account's administrator; the old account is listed as former.
    const after = await me(token);
    expect(after).toMatchObject({
      tenantId: newTenantId,
      slug: wanted,
      role: 'administrator',
      newAccount: null,
    });
    expect(after.formerAccounts).toEqual([
      { slug: tenant.slug, leftBy: 'cancelled_in_portal', closedAt: expect.any(String) },
    ]);
    // A retry of the same request is the same success, and makes nothing more.
    expect((await lock(token, wanted)).json).toMatchObject({ slug: wanted });
    // A session of another browser, still on the old account, must sign in again; a new sign-in
    // opens the new account.
    expect((await api.call('GET', '/v1/me', { token: other })).status).toBe(401);
    const again = await api.signIn(tenant.login);
    expect(again.tenantId).toBe(newTenantId);
  });

  it('the old account’s billing stays readable (account=<slug>), another’s is 404; the new account pays today’s price with no lock and may redeem a promotion code; one live subscription', async () => {
    const tenant = await cancelled();
    const oldCustomer = subscriptionOf(tenant.tenantId).customer;
    const token = await tornDown(tenant);
    const slug = uniqueSlug('back');
    expect((await lock(token, slug)).status).toBe(200);
    const newTenantId = (await tenantIdOfSlug(slug)) ?? '';

    const oldInvoices = await api.call('GET', `/v1/billing/invoices?account=${tenant.slug}`, { token });
    expect(oldInvoices.status).toBe(200);
    expect(oldInvoices.json.invoices.length).toBeGreaterThan(0);
    // The old account's invoice links name it, and lead to its invoice (303), not a 404 from the
    // new account's customer; the same link without `account` is one of the new account's (404).
    const [oldInvoice] = oldInvoices.json.invoices;
    expect(oldInvoice.viewUrl).toContain(`?account=${tenant.slug}`);
    const oldView = await api.call('GET', oldInvoice.viewUrl, { token });
    expect(oldView.status).toBe(303);
    expect(oldView.headers.location).toContain(`/i/in_`);
    const withoutAccount = await api.call('GET', oldInvoice.viewUrl.split('?')[0], { token });
    expect(withoutAccount.status).toBe(404);
    const oldStatus = await api.call('GET', `/v1/billing/status?account=${tenant.slug}`, { token });
    expect(oldStatus.json).toMatchObject({ billingState: 'decommissioning', closing: { tornDown: true } });
    const stranger = await api.subscribe({ plan: 'standard' });
    const foreign = await api.call('GET', `/v1/billing/invoices?account=${stranger.slug}`, { token });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('account_not_found');

    const coupon = emulator.route('POST', '/v1/coupons', { percent_off: '50', duration: 'once' }) as {
      id: string;
    };
    const code = `BACK${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    emulator.route('POST', '/v1/promotion_codes', { promotion: { coupon: coupon.id, type: 'coupon' }, code });
    await payNewAccount(token, newTenantId, 'standard', code);
    expect((await getTenant(newTenantId))?.billingState).toBe('active');
    // A new processor customer; the first Stack is billed at today's price with no lock.
    const newCustomer = subscriptionOf(newTenantId).customer;
    expect(newCustomer).not.toBe(oldCustomer);
    const [stack] = await listStacks(newTenantId);
    expect(stack?.priceLock).toBeUndefined();
    const firstInvoice = Object.values(emulator.state.invoices).find((i) => i.customer === newCustomer);
    expect(firstInvoice?.total).toBeLessThan(firstInvoice?.subtotal ?? 0);
    // One live subscription across the person's accounts; nothing billed to the old one after leaving.
    const live = Object.values(emulator.state.subscriptions).filter(
      (s) => (s.customer === oldCustomer || s.customer === newCustomer) && s.status !== 'canceled',
    );
    expect(live).toHaveLength(1);
    const latestOld = Object.values(emulator.state.invoices)
      .filter((i) => i.customer === oldCustomer && i.status === 'paid')
      .map((i) => i.created)
      .sort()
      .at(-1);
    expect(latestOld ?? 0).toBeLessThan(
      Date.parse((await getTenant(tenant.tenantId))?.billingStoppedAt ?? '') / 1000,
    );
  });

  it('racing requests: two slugs make one account (the other 409 new_account_exists, its slug unclaimed); the same slug twice answers both', async () => {
    const tenant = await cancelled();
    const token = await tornDown(tenant);
    const [a, b] = [uniqueSlug('race-a'), uniqueSlug('race-b')];
    const answers = await Promise.all([lock(token, a), lock(token, b)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const lost = answers.find((r) => r.status === 409);
    expect(lost?.json.error.code).toBe('new_account_exists');
    const claims = [await tenantIdOfSlug(a), await tenantIdOfSlug(b)].filter(Boolean);
    expect(claims).toHaveLength(1);
    expect((await getUser(tenant.userId))?.formerTenantIds).toEqual([tenant.tenantId]);

    const other = await cancelled();
    const otherToken = await tornDown(other);
    const same = uniqueSlug('same');
    const twice = await Promise.all([lock(otherToken, same), lock(otherToken, same)]);
    expect(twice.map((r) => r.status)).toEqual([200, 200]);
    expect((await getUser(other.userId))?.formerTenantIds).toEqual([other.tenantId]);
  });

  it('an account closed before it ever paid: a new account at once, and its first subscription is a first-time one', async () => {
    const tenant = await api.readyTenant();
    expect((await api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken })).status).toBe(202);
    const closing = await me(tenant.sessionToken);
    expect(closing.newAccount).toMatchObject({ possible: false, possibleFrom: null });
    await api.sweep();
    const closed = await getTenant(tenant.tenantId);
    expect(closed?.tornDownAt).toEqual(expect.any(String));
    expect((await me(tenant.sessionToken)).newAccount.possible).toBe(true);
    const slug = uniqueSlug('fresh');
    expect((await lock(tenant.sessionToken, slug)).status).toBe(200);
    const newTenantId = (await tenantIdOfSlug(slug)) ?? '';
    expect((await getTenant(newTenantId))?.returning).toMatchObject({ subscribedBefore: false });
    await payNewAccount(tenant.sessionToken, newTenantId);
    // Never paid before, and no Open Signup yet: founding, as any first subscription now.
    const [stack] = await listStacks(newTenantId);
    expect(stack?.priceLock?.state).toBe('locked');
  });

  it('one live subscription per person: checkout refuses while a former account’s customer still has one, and writes nothing', async () => {
    const paying = await api.subscribe({ plan: 'standard' });
    const person = await api.readyTenant();
    // As if the person's former account were that paying one (its billing never stopped).
    await setStored(keys.user(person.userId), { formerTenantIds: [paying.tenantId] });
    const customersBefore = Object.keys(emulator.state.customers).length;
    const refused = await api.call('POST', '/v1/billing/checkout', {
      token: person.sessionToken,
      body: { plan: 'standard' },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({
      code: 'subscription_exists',
      message: expect.stringContaining('former account'),
    });
    expect(await getBilling(person.tenantId)).toBeUndefined();
    expect(Object.keys(emulator.state.customers).length).toBe(customersBefore);
  });
});

describe('the money-back refund: once per person, only from active', { timeout: 120_000 }, () => {
  it('subscribe, refund, leave, come back, subscribe: the second request is refused and nothing is refunded', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const first = await grantMoneyBack(adminRequest(tenant, api.clock.now()));
    expect(first.refunds).toBe(1);
    await api.sweep();
    const token = await tornDown(tenant);
    const slug = uniqueSlug('loop');
    expect((await lock(token, slug)).status).toBe(200);
    const newTenantId = (await tenantIdOfSlug(slug)) ?? '';
    expect((await getTenant(newTenantId))?.returning?.moneyBack).toEqual({
      slug: tenant.slug,
      grantedAt: first.grantedAt,
    });
    await payNewAccount(token, newTenantId);
    const status = (await api.call('GET', '/v1/billing/status', { token })).json;
    expect(status.moneyBack).toMatchObject({
      available: false,
      usedByEarlierAccount: { slug: tenant.slug, grantedAt: first.grantedAt },
    });

    const refundsBefore = Object.keys(emulator.state.refunds).length;
    const refusal = await refusalOf(adminRequest({ slug, login: tenant.login }, api.clock.now()));
    expect(refusal.code).toBe('used_by_earlier_account');
    expect(refusal.message).toContain(tenant.slug);
    expect(Object.keys(emulator.state.refunds).length).toBe(refundsBefore);
    expect((await getTenant(newTenantId))?.moneyBack).toBeUndefined();
    expect(subscriptionOf(newTenantId).status).toBe('active');
  });

  it('past-due: refused with the reason and the grace end, nothing written, nothing refunded', async () => {
    const tenant = await api.subscribe({ plan: 'standard', card: TEST_CARDS.failsLater });
    api.clock.advance(31 * DAY_S);
    await api.sweep();
    const pastDue = await getTenant(tenant.tenantId);
    expect(pastDue?.billingState).toBe('past-due');
    const refundsBefore = Object.keys(emulator.state.refunds).length;
    const refusal = await refusalOf(adminRequest(tenant, api.clock.now()));
    expect(refusal.code).toBe('account_past_due');
    expect(refusal.message).toContain('only to an active account');
    expect(refusal.extra).toMatchObject({ graceEndsAt: pastDue?.graceDeadline });
    expect(await getTenant(tenant.tenantId)).toEqual(pastDue);
    expect(Object.keys(emulator.state.refunds).length).toBe(refundsBefore);
    expect(subscriptionOf(tenant.tenantId).status).not.toBe('canceled');

    api.clock.advance(7 * DAY_S);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('suspended');
    expect((await refusalOf(adminRequest(tenant, api.clock.now()))).code).toBe('account_suspended');
    expect((await getTenant(tenant.tenantId))?.moneyBack).toBeUndefined();
  });
});
