import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { listInventory } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { regionWithPlaces } from '../support/gateway.ts';
import {
  applyPromotionCode,
  openPage,
  payOnCheckout,
  TEST_CARDS,
  totalShown,
} from '../support/hosted-pages.ts';
import { partitionItems } from '../support/stored.ts';

const { api } = gatewayForFile({ processor: true });

const checkout = (token: string, body: unknown = {}) =>
  api.call('POST', '/v1/billing/checkout', { token, body });
const billingItem = async (tenantId: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.billing(tenantId), ConsistentRead: true }),
    )
  ).Item;
const reservationsOf = (region: string) => partitionItems(keys.reservation(region, '').PK, 'RESERVATION#');

/** A region of this test's own with the given places per Plan. */
const regionWith = (places: Partial<Record<'standard' | 'plus' | 'pro', number>>) =>
  regionWithPlaces(api.clock, { a: places });

describe('POST /v1/billing/checkout: preconditions', () => {
  it('needs the slug locked first: 409 slug_required, nothing written', async () => {
    const session = await api.signIn(`noslug-${Date.now()}`);
    const response = await checkout(session.sessionToken, { plan: 'plus' });
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject({
      code: 'slug_required',
      message: 'Lock in your slug first, then check out.',
      apiHint: 'POST /v1/tenant/slug',
    });
    expect(await billingItem(session.tenantId)).toBeUndefined();
  });

  it('refuses another Plan value with 400 naming the field', async () => {
    const tenant = await api.readyTenant();
    const response = await checkout(tenant.sessionToken, { plan: 'gold' });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'invalid_field', field: 'plan' });
    expect(await billingItem(tenant.tenantId)).toBeUndefined();
  });

  it('is for administrators only', async () => {
    const tenant = await api.readyTenant();
    const memberLogin = `member-${Date.now()}`;
    await api.call('POST', '/_local/members', { token: tenant.sessionToken, body: { login: memberLogin } });
    const member = await api.signIn(memberLogin);
    const response = await checkout(member.sessionToken, { plan: 'plus' });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('admin_required');
  });
});

describe('POST /v1/billing/checkout: the hosted Checkout', () => {
  it('selects standard when no Plan is named', async () => {
    const region = await regionWith({ standard: 1 });
    const tenant = await api.readyTenant(region);
    const response = await checkout(tenant.sessionToken);
    expect(response.status).toBe(200);
    const page = await openPage(response.json.url);
    expect(page.html).toContain('Stack Plan: Standard');
    expect(totalShown(page.html)).toBe('US$40.00');
  });

  it('answers the url of a Checkout page for exactly the chosen Plan, with a promotion code field and a card field', async () => {
    const tenant = await api.readyTenant();
    const response = await checkout(tenant.sessionToken, { plan: 'plus' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json)).toEqual(['url']);
    const page = await openPage(response.json.url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Stack Plan: Plus');
    expect(totalShown(page.html)).toBe('US$50.00');
    expect(page.html).toContain('name="promotion_code"');
    expect(page.html).toContain('name="card_number"');
  });

  it('repeating the request while the session is open returns the same url', async () => {
    const tenant = await api.readyTenant();
    const first = await checkout(tenant.sessionToken, { plan: 'pro' });
    const second = await checkout(tenant.sessionToken, { plan: 'pro' });
    expect(second.json.url).toBe(first.json.url);
  });

  it('choosing another Plan while one is open expires the first session and reserves the new Plan only', async () => {
    const region = await regionWith({ plus: 5, pro: 5 });
    const tenant = await api.readyTenant(region);
    const first = await checkout(tenant.sessionToken, { plan: 'plus' });
    const second = await checkout(tenant.sessionToken, { plan: 'pro' });
    expect(second.json.url).not.toBe(first.json.url);
    expect((await openPage(first.json.url)).status).toBe(410);
    const held = await reservationsOf(region);
    expect(held.map((r) => r.plan)).toEqual(['pro']);
  });

  /** A new tenant's checkout of `plan`, paid on the hosted page with `card` (the queue emptied before). */
  const payNewCheckout = async (plan: 'standard' | 'plus' | 'pro', card: string) => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant.sessionToken, { plan });
    await api.drainQueue();
    return { tenant, url: json.url as string, answer: await payOnCheckout(json.url, card) };
  };

  it('paying with 4242… completes the session, creates the subscription and puts the verified events on the queue', async () => {
    const { tenant, answer: paid } = await payNewCheckout('plus', TEST_CARDS.succeeds);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe('https://app.test/?checkout=complete');
    await api.emulator?.flushWebhooks();
    const events = await api.drainQueue();
    const types = events.map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining(['checkout.session.completed', 'customer.subscription.created', 'invoice.paid']),
    );
    const completed = events.find((event) => event.type === 'checkout.session.completed')?.data.object;
    expect(completed).toMatchObject({
      client_reference_id: tenant.tenantId,
      status: 'complete',
      payment_status: 'paid',
      mode: 'subscription',
    });
    const subscription = events.find((event) => event.type === 'customer.subscription.created')?.data
      .object as {
      metadata: Record<string, string>;
      items: { data: { price: { lookup_key: string }; quantity: number }[] };
    };
    expect(subscription.metadata).toEqual({ tenantId: tenant.tenantId, plan: 'plus' });
    expect(subscription.items.data.map((item) => [item.price.lookup_key, item.quantity])).toEqual([
      ['stack_plan_plus_monthly', 1],
    ]);
    const invoice = events.find((event) => event.type === 'invoice.paid')?.data.object;
    expect(invoice).toMatchObject({ amount_paid: 5000, billing_reason: 'subscription_create' });

    const again = await checkout(tenant.sessionToken, { plan: 'plus' });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('subscription_exists');
  });

  it('a declined card (4000…0002) shows the decline and completes nothing', async () => {
    const { tenant, url, answer: declined } = await payNewCheckout('standard', TEST_CARDS.declined);
    expect(declined.status).toBe(402);
    expect(declined.html).toContain('Your card was declined.');
    await api.emulator?.flushWebhooks();
    expect(await api.drainQueue()).toEqual([]);
    const again = await checkout(tenant.sessionToken, { plan: 'standard' });
    expect(again.json.url).toBe(url);
  });
});

describe('capacity', () => {
  it('no place for the chosen Plan: 409 no_capacity with exactly the placeable Plans, nothing written', async () => {
    const region = await regionWith({ standard: 2, plus: 1, pro: 0 });
    const tenant = await api.readyTenant(region);
    const response = await checkout(tenant.sessionToken, { plan: 'pro' });
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({
      reason: 'no_capacity',
      availablePlans: ['standard', 'plus'],
      error: { code: 'no_capacity' },
    });
    expect(await billingItem(tenant.tenantId)).toBeUndefined();
    expect(await reservationsOf(region)).toEqual([]);
  });

  it('two tenants racing for the last place: one gets a url, the other the 409', async () => {
    const region = await regionWith({ standard: 1, pro: 1 });
    const [first, second] = await Promise.all([api.readyTenant(region), api.readyTenant(region)]);
    const responses = await Promise.all([
      checkout(first?.sessionToken ?? '', { plan: 'pro' }),
      checkout(second?.sessionToken ?? '', { plan: 'pro' }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = responses.find((r) => r.status === 409);
    expect(refused?.json).toMatchObject({ reason: 'no_capacity', availablePlans: ['standard'] });
    expect(await reservationsOf(region)).toHaveLength(1);
  });

  it('a reservation holds the place until the sweep has expired its session at the processor, then frees it', async () => {
    const region = await regionWith({ pro: 1 });
    const holder = await api.readyTenant(region);
    const waiting = await api.readyTenant(region);
    const { json } = await checkout(holder.sessionToken, { plan: 'pro' });
    const plans = await api.call('GET', '/v1/billing/plans', { token: waiting.sessionToken });
    expect(plans.json.plans.find((p: { value: string }) => p.value === 'pro').placeable).toBe(false);
    expect((await checkout(waiting.sessionToken, { plan: 'pro' })).status).toBe(409);

    // Past the reservation's time the place stays held: a payment may still be on its way.
    api.clock.advance(32 * 60);
    expect((await checkout(waiting.sessionToken, { plan: 'pro' })).status).toBe(409);
    const sessionId = new URL(json.url).pathname.split('/').at(-1) as string;
    await api.sweep();
    // The sweep asked the processor about the session and freed the place only once it could no
    // longer be paid.
    expect(
      api.emulator?.calls.some((c) => c.method === 'GET' && c.path === `/v1/checkout/sessions/${sessionId}`),
    ).toBe(true);
    expect(api.emulator?.state.checkoutSessions[sessionId]?.status).toBe('expired');
    expect((await listInventory(region)).reservations).toEqual([]);
    expect((await checkout(waiting.sessionToken, { plan: 'pro' })).status).toBe(200);
  });

  it('a checkout paid just before its reservation lapsed keeps its place: the reservation becomes the Stack', async () => {
    const region = await regionWith({ pro: 1 });
    const payer = await api.readyTenant(region);
    const other = await api.readyTenant(region);
    const { json } = await checkout(payer.sessionToken, { plan: 'pro' });
    api.clock.advance(30 * 60);
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    // The event is still on its way when the reservation's time passes and another tenant tries.
    api.clock.advance(2 * 60);
    expect((await checkout(other.sessionToken, { plan: 'pro' })).status).toBe(409);
    await api.emulator?.flushWebhooks();
    await api.sweep();
    const inventory = await listInventory(region);
    expect(inventory.slots.find((s) => s.plan === 'pro')).toMatchObject({ total: 1, used: 1 });
    expect(inventory.reservations).toEqual([]);
    expect((await checkout(other.sessionToken, { plan: 'pro' })).status).toBe(409);
  });
});

describe('promotion codes', () => {
  const createCode = (code: string, percentOff: number) => {
    const emulator = api.emulator;
    if (!emulator) throw new Error('no emulator');
    const coupon = emulator.route('POST', '/v1/coupons', {
      percent_off: String(percentOff),
      duration: 'once',
    }) as { id: string };
    emulator.route('POST', '/v1/promotion_codes', { promotion: { coupon: coupon.id, type: 'coupon' }, code });
  };

  it('are accepted on the first checkout page; for a 100% code our Checkout Session still asks the processor to collect the card', async () => {
    const code = `FREE${Date.now()}`;
    createCode(code, 100);
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant.sessionToken, { plan: 'plus' });
    // What OUR checkout asked of the processor: always collect a payment method, even when a code
    // makes the first invoice free (Stripe's `if_required` would skip the card, and the renewal
    // would then fail). The emulator defaults to `always` when the parameter is missing, so only
    // the recorded request tells.
    const created = (api.emulator?.calls ?? []).filter(
      (c) =>
        c.method === 'POST' &&
        c.path === '/v1/checkout/sessions' &&
        c.params.client_reference_id === tenant.tenantId,
    );
    expect(created).toHaveLength(1);
    expect(created[0]?.params).toMatchObject({
      payment_method_collection: 'always',
      allow_promotion_codes: 'true',
    });
    const applied = await applyPromotionCode(json.url, code);
    expect(applied.status).toBe(200);
    expect(totalShown(applied.html)).toBe('US$0.00');
    const paid = await payOnCheckout(json.url, TEST_CARDS.succeeds);
    expect(paid.status).toBe(303);
    await api.emulator?.flushWebhooks();
    const events = await api.drainQueue();
    const completed = events.find(
      (e) => e.type === 'checkout.session.completed' && e.data.object.client_reference_id === tenant.tenantId,
    );
    expect(completed?.data.object).toMatchObject({ payment_status: 'no_payment_required', amount_total: 0 });
  });

  it('an unknown code is refused on the page', async () => {
    const tenant = await api.readyTenant();
    const { json } = await checkout(tenant.sessionToken, { plan: 'plus' });
    const refused = await applyPromotionCode(json.url, 'NOSUCHCODE');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('This code is invalid.');
  });

  it('are refused anywhere else: a session that does not allow them refuses a code', async () => {
    const code = `HALF${Date.now()}`;
    createCode(code, 50);
    const emulator = api.emulator;
    if (!emulator) throw new Error('no emulator');
    const customer = emulator.route('POST', '/v1/customers', { email: 'later@example.test' }) as {
      id: string;
    };
    const price = Object.values(emulator.state.prices).find((p) => p.lookupKey === 'stack_plan_plus_monthly');
    const session = emulator.route('POST', '/v1/checkout/sessions', {
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: price?.id ?? '', quantity: '1' }],
      success_url: 'https://app.test/',
      expires_at: String(Math.floor(api.clock.now().getTime() / 1000) + 3600),
    }) as { url: string };
    const page = await openPage(session.url);
    expect(page.html).not.toContain('name="promotion_code"');
    const refused = await applyPromotionCode(session.url, code);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('does not accept promotion codes');
  });

  it('the processor refuses allow_promotion_codes together with discounts', async () => {
    const emulator = api.emulator;
    if (!emulator) throw new Error('no emulator');
    const customer = emulator.route('POST', '/v1/customers', {}) as { id: string };
    const price = Object.values(emulator.state.prices).find((p) => p.lookupKey === 'stack_plan_plus_monthly');
    const coupon = emulator.route('POST', '/v1/coupons', { percent_off: '10', duration: 'once' }) as {
      id: string;
    };
    expect(() =>
      emulator.route('POST', '/v1/checkout/sessions', {
        mode: 'subscription',
        customer: customer.id,
        line_items: [{ price: price?.id ?? '', quantity: '1' }],
        success_url: 'https://app.test/',
        allow_promotion_codes: 'true',
        discounts: [{ coupon: coupon.id }],
      }),
    ).toThrow(/only specify one of these parameters: allow_promotion_codes, discounts/);
  });
});
