import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProcessorEmulator, StripeApiError } from '../../lib/local/processor/emulator.ts';
import { parseForm } from '../../lib/local/processor/form.ts';
import { addMonths, cardBehavior, type SubscriptionRecord } from '../../lib/local/processor/state.ts';
import { monthlyPrice } from '../support/processor-view.ts';

/** The fixtures as the shared Stripe reference publishes them (copied into lib/local/processor). */
const fixtures = JSON.parse(
  readFileSync(new URL('../../lib/local/processor/fixtures.json', import.meta.url), 'utf8'),
).resources as Record<string, Record<string, unknown>>;
const keysOf = (value: unknown) => Object.keys(value as object).sort();

const emulatorWithSubscription = () => {
  let now = Date.parse('2026-01-31T10:00:00Z');
  const emulator = new ProcessorEmulator({ now: () => new Date(now) });
  const customer = emulator.route('POST', '/v1/customers', {
    email: 'a@example.test',
    metadata: { tenantId: 't1' },
  }) as { id: string };
  const product = emulator.route('POST', '/v1/products', {
    name: 'Stack Plan: Plus',
    id: 'stack_plan_plus',
  }) as { id: string };
  const price = monthlyPrice(emulator, product.id, 5000, { lookup_key: 'stack_plan_plus_monthly' });
  const session = emulator.route('POST', '/v1/checkout/sessions', {
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: price.id, quantity: '1' }],
    success_url: 'https://app.test/',
    automatic_tax: { enabled: 'true' },
    customer_update: { address: 'auto' },
    expires_at: String(now / 1000 + 3600),
  }) as { id: string };
  emulator.payCheckout(session.id, '4242424242424242');
  const advance = (seconds: number) => {
    now += seconds * 1000;
    emulator.tick();
  };
  return { emulator, customer, product, price, session, advance };
};

/** A subscription Checkout Session of one `price` for `customer`, with `more` parameters. */
const checkoutSession = (
  emulator: ProcessorEmulator,
  customer: { id: string },
  price: { id: string },
  more: Record<string, unknown>,
) =>
  emulator.route('POST', '/v1/checkout/sessions', {
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: price.id }],
    success_url: 'https://x',
    ...more,
  });

describe('processor emulator: answers in the current API shapes (contract with Stripe fixtures)', () => {
  const { emulator, customer, product, price, session } = emulatorWithSubscription();
  const subscription = Object.values(emulator.state.subscriptions)[0];
  const invoice = Object.values(emulator.state.invoices)[0];
  const coupon = emulator.route('POST', '/v1/coupons', { percent_off: '10', duration: 'once' }) as {
    id: string;
  };
  emulator.route('POST', '/v1/billing_portal/configurations', {
    features: { payment_method_update: { enabled: 'true' } },
  });
  const objects: [string, unknown][] = [
    ['customer', emulator.route('GET', `/v1/customers/${customer.id}`, {})],
    ['product', emulator.route('GET', `/v1/products/${product.id}`, {})],
    ['price', emulator.route('GET', `/v1/prices/${price.id}`, {})],
    ['checkout.session', emulator.route('GET', `/v1/checkout/sessions/${session.id}`, {})],
    ['subscription', emulator.route('GET', `/v1/subscriptions/${subscription?.id}`, {})],
    ['invoice', emulator.route('GET', `/v1/invoices/${invoice?.id}`, {})],
    [
      'invoice_payment',
      (emulator.route('GET', '/v1/invoice_payments', { invoice: invoice?.id ?? '' }) as { data: unknown[] })
        .data[0],
    ],
    ['coupon', coupon],
    [
      'promotion_code',
      emulator.route('POST', '/v1/promotion_codes', { promotion: { coupon: coupon.id, type: 'coupon' } }),
    ],
    [
      'billing_portal.configuration',
      (emulator.route('GET', '/v1/billing_portal/configurations', {}) as { data: unknown[] }).data[0],
    ],
    [
      'billing_portal.session',
      emulator.route('POST', '/v1/billing_portal/sessions', { customer: customer.id }),
    ],
  ];

  it.each(objects)('a %s has exactly the fixture’s fields', (resource, object) => {
    expect(keysOf(object)).toEqual(keysOf(fixtures[resource]));
  });

  it('subscription items carry the current period (moved there from the subscription)', () => {
    const rendered = emulator.route('GET', `/v1/subscriptions/${subscription?.id}`, {}) as {
      items: { data: Record<string, unknown>[] };
    };
    const item = rendered.items.data[0];
    expect(keysOf(item)).toEqual(keysOf(fixtures.subscription_item));
    expect(item?.current_period_end).toBeGreaterThan(item?.current_period_start as number);
  });

  it('an invoice names its subscription under parent.subscription_details', () => {
    const rendered = emulator.route('GET', `/v1/invoices/${invoice?.id}`, {}) as {
      parent: { subscription_details: { subscription: string } };
    };
    expect(rendered.parent.subscription_details.subscription).toBe(subscription?.id);
  });
});

describe('processor emulator: refuses what Stripe refuses', () => {
  it('the same price twice on one subscription', () => {
    const { emulator, price } = emulatorWithSubscription();
    const subscription = Object.values(emulator.state.subscriptions)[0];
    expect(() =>
      emulator.route('POST', `/v1/subscriptions/${subscription?.id}`, {
        items: [{ price: price.id, quantity: '1' }],
      }),
    ).toThrow(/multiple subscription items with the same price/);
  });

  it('a price swap without a quantity resets the quantity to 1', () => {
    const { emulator, product } = emulatorWithSubscription();
    const subscription = Object.values(emulator.state.subscriptions)[0];
    const item = subscription?.items[0];
    emulator.route('POST', `/v1/subscriptions/${subscription?.id}`, {
      items: [{ id: item?.id ?? '', quantity: '3' }],
    });
    expect(subscription?.items[0]?.quantity).toBe(3);
    const other = monthlyPrice(emulator, product.id, 6000);
    emulator.route('POST', `/v1/subscriptions/${subscription?.id}`, {
      items: [{ id: item?.id ?? '', price: other.id }],
    });
    expect(subscription?.items[0]?.quantity).toBe(1);
  });

  it('a lookup key another price holds, unless transfer_lookup_key', () => {
    const { emulator, product, price } = emulatorWithSubscription();
    const params = {
      product: product.id,
      unit_amount: '5500',
      currency: 'usd',
      recurring: { interval: 'month' },
      lookup_key: 'stack_plan_plus_monthly',
    };
    expect(() => emulator.route('POST', '/v1/prices', params)).toThrow(StripeApiError);
    const moved = emulator.route('POST', '/v1/prices', { ...params, transfer_lookup_key: 'true' }) as {
      id: string;
      lookup_key: string;
    };
    expect(moved.lookup_key).toBe('stack_plan_plus_monthly');
    expect(emulator.state.prices[price.id]?.lookupKey).toBeNull();
  });

  it('a Checkout Session expiring in less than 30 minutes', () => {
    const { emulator, customer, price } = emulatorWithSubscription();
    const now = Math.floor(Date.parse('2026-01-31T10:00:00Z') / 1000);
    expect(() => checkoutSession(emulator, customer, price, { expires_at: String(now + 600) })).toThrow(
      /between 30 minutes and 24 hours/,
    );
  });

  it('automatic tax without a customer address and without customer_update[address]=auto', () => {
    const { emulator, customer, price } = emulatorWithSubscription();
    expect(() => checkoutSession(emulator, customer, price, { automatic_tax: { enabled: 'true' } })).toThrow(
      /Automatic tax calculation in Checkout requires a valid address/,
    );
  });

  it('refunding more than was paid', () => {
    const { emulator } = emulatorWithSubscription();
    const intent = Object.values(emulator.state.paymentIntents)[0];
    expect(() =>
      emulator.route('POST', '/v1/refunds', { payment_intent: intent?.id ?? '', amount: '999999' }),
    ).toThrow(/greater than unrefunded/);
  });
});

describe('processor emulator: renewals follow the shared clock', () => {
  it('bills the next period when the clock passes the period end; anchored on the 31st, February ends on the 28th', () => {
    const { emulator, advance } = emulatorWithSubscription();
    const subscription = Object.values(emulator.state.subscriptions)[0];
    expect(new Date((subscription?.currentPeriodEnd ?? 0) * 1000).toISOString()).toBe(
      '2026-02-28T10:00:00.000Z',
    );
    advance(29 * 86400);
    expect(
      Object.values(emulator.state.invoices).filter((i) => i.billingReason === 'subscription_cycle'),
    ).toHaveLength(1);
    expect(subscription?.status).toBe('active');
  });

  it('a card that fails later charges leaves the renewal open and the subscription past_due', () => {
    const { emulator, advance, customer } = emulatorWithSubscription();
    emulator.updatePaymentMethod(customer.id, '4000000000000341');
    advance(29 * 86400);
    const subscription = Object.values(emulator.state.subscriptions)[0];
    expect(subscription?.status).toBe('past_due');
    expect(Object.values(emulator.state.invoices).some((i) => i.status === 'open')).toBe(true);
    emulator.updatePaymentMethod(customer.id, '4242424242424242');
    expect(subscription?.status).toBe('active');
  });
});

describe('processor emulator: small rules', () => {
  it('parses Stripe’s bracket form encoding', () => {
    expect(
      parseForm(
        'line_items[0][price]=p1&line_items[0][quantity]=2&metadata[tenantId]=t&expand[]=a&expand[]=b&flag=true',
      ),
    ).toEqual({
      line_items: [{ price: 'p1', quantity: '2' }],
      metadata: { tenantId: 't' },
      expand: ['a', 'b'],
      flag: 'true',
    });
  });

  it.each([
    ['4242 4242 4242 4242', 'succeeds'],
    ['4000 0000 0000 0002', 'declined'],
    ['4000 0000 0000 0341', 'fails_later'],
    ['4242 4242 4242 4241', 'invalid'],
    ['', 'invalid'],
  ])('test card %s %s', (card, behavior) => {
    expect(cardBehavior(card)).toBe(behavior);
  });

  it('adds calendar months, clamping the day', () => {
    const at = (iso: string) => Date.parse(iso) / 1000;
    expect(addMonths(at('2026-01-31T00:00:00Z'), 1)).toBe(at('2026-02-28T00:00:00Z'));
    expect(addMonths(at('2026-12-15T08:30:00Z'), 1)).toBe(at('2027-01-15T08:30:00Z'));
  });
});

/**
 * Plan changes and added Stacks (issue 11 item 4). A subscription paid on 2026-04-01 00:00 UTC:
 * its period is April, 30 days, so a change "at day 10" (2026-04-11) leaves 20 of 30 days.
 * Prices: Plus 5000, Pro 9900, a Stack 3000. Expected amounts are worked out by hand.
 */
const DAY_S = 86_400;
const APRIL_1_S = Date.parse('2026-04-01T00:00:00Z') / 1000;
const at = (days: number) => APRIL_1_S + days * DAY_S;

interface Money {
  id: string;
  total: number;
  subtotal: number;
  amount_due: number;
  amount_paid: number;
  starting_balance: number;
  ending_balance: number | null;
  billing_reason: string;
  status: string;
  total_excluding_tax: number;
  total_taxes: { amount: number; taxable_amount: number; type: string }[];
  total_discount_amounts: { amount: number }[];
  lines: {
    data: {
      amount: number;
      period: { start: number; end: number };
      taxes: { amount: number }[];
      discount_amounts: { amount: number }[];
      parent: {
        type: string;
        subscription_item_details: { proration: boolean; invoice_item: string | null } | null;
      };
    }[];
  };
}

const billingEmulator = (
  options: {
    country?: string;
    couponPercent?: number;
    plan?: 'plus' | 'pro';
    quantity?: number;
    taxRates?: Record<string, number>;
  } = {},
) => {
  let now = APRIL_1_S * 1000;
  const emulator = new ProcessorEmulator({
    now: () => new Date(now),
    ...(options.taxRates ? { taxRates: options.taxRates } : {}),
  });
  const post = (path: string, params: Parameters<ProcessorEmulator['route']>[2]) =>
    emulator.route('POST', path, params) as Record<string, unknown> & { id: string };
  const customer = post('/v1/customers', { email: 'b@example.test', metadata: { tenantId: 't2' } });
  const planProduct = post('/v1/products', { name: 'Stack Plan', id: 'stack_plan' });
  const stackProduct = post('/v1/products', { name: 'Added Stack', id: 'stack_added' });
  const monthly = { currency: 'usd', recurring: { interval: 'month' } };
  const plus = post('/v1/prices', { product: planProduct.id, unit_amount: '5000', ...monthly });
  const pro = post('/v1/prices', { product: planProduct.id, unit_amount: '9900', ...monthly });
  const stack = post('/v1/prices', { product: stackProduct.id, unit_amount: '3000', ...monthly });
  if (options.couponPercent)
    post('/v1/coupons', { id: 'OFF', percent_off: String(options.couponPercent), duration: 'forever' });
  const session = post('/v1/checkout/sessions', {
    mode: 'subscription',
    customer: customer.id,
    line_items: [
      { price: (options.plan === 'pro' ? pro : plus).id, quantity: String(options.quantity ?? 1) },
    ],
    success_url: 'https://app.test/',
    automatic_tax: { enabled: 'true' },
    customer_update: { address: 'auto' },
    ...(options.couponPercent ? { discounts: [{ coupon: 'OFF' }] } : {}),
  });
  expect(emulator.payCheckout(session.id, '4242424242424242', options.country).ok).toBe(true);
  const subscription = Object.values(emulator.state.subscriptions)[0] as SubscriptionRecord;
  const item = subscription.items[0] as { id: string };
  return {
    emulator,
    customer,
    prices: { plus: plus.id, pro: pro.id, stack: stack.id },
    subscription,
    item,
    session,
    update: (params: Parameters<ProcessorEmulator['route']>[2]) =>
      emulator.route('POST', `/v1/subscriptions/${subscription.id}`, params),
    pending: () =>
      (
        emulator.route('GET', '/v1/invoiceitems', { customer: customer.id, pending: 'true' }) as {
          data: Record<string, unknown>[];
        }
      ).data,
    invoices: () =>
      (emulator.route('GET', '/v1/invoices', { subscription: subscription.id }) as { data: Money[] }).data,
    advanceTo: (seconds: number) => {
      now = seconds * 1000;
      emulator.tick();
    },
  };
};

const amounts = (items: Record<string, unknown>[]) =>
  items.map((i) => i.amount as number).sort((a, b) => a - b);

describe('processor emulator: subscription changes are prorated as Stripe does', () => {
  it('adding a Stack mid-cycle makes a pending proration item of the subscription, listed, and billed on the next renewal', () => {
    const { prices, subscription, update, pending, invoices, advanceTo, emulator, customer } =
      billingEmulator();
    update({
      items: [{ price: prices.stack, quantity: '1' }],
      proration_behavior: 'create_prorations',
      proration_date: String(at(10)),
    });
    const added = subscription.items.find((i) => i.price === prices.stack);
    expect(added?.quantity).toBe(1);
    // 3000 x 1 x 20/30 = 2000, for 2026-04-11 to 2026-05-01.
    const [proration, ...others] = pending();
    expect(others).toEqual([]);
    expect(keysOf(proration)).toEqual(keysOf(fixtures.invoiceitem));
    expect(proration).toMatchObject({
      object: 'invoiceitem',
      amount: 2000,
      proration: true,
      invoice: null,
      customer: customer.id,
      period: { start: at(10), end: at(30) },
      parent: { subscription_details: { subscription: subscription.id, subscription_item: added?.id } },
    });

    advanceTo(at(30));
    const renewal = invoices().find((i) => i.billing_reason === 'subscription_cycle');
    // Next period 5000 (Plus) + 3000 (Stack), plus the 2000 proration: 10000, paid.
    expect(renewal?.lines.data.map((l) => l.amount).sort((a, b) => a - b)).toEqual([2000, 3000, 5000]);
    expect(renewal).toMatchObject({ subtotal: 10000, total: 10000, amount_paid: 10000, status: 'paid' });
    const prorationLine = renewal?.lines.data.find((l) => l.amount === 2000);
    expect(keysOf(prorationLine)).toEqual(keysOf(fixtures.line_item));
    expect(prorationLine?.parent).toMatchObject({
      type: 'subscription_item_details',
      subscription_item_details: { proration: true, invoice_item: proration?.id },
    });
    expect(prorationLine?.period).toEqual({ start: at(10), end: at(30) });
    expect(
      renewal?.lines.data.filter((l) => l.parent.subscription_item_details?.proration === false),
    ).toHaveLength(2);
    expect(pending()).toEqual([]);
    expect(emulator.state.invoiceItems[proration?.id as string]?.invoice).toBe(renewal?.id);
  });

  it('an upgrade mid-cycle swaps the price, keeping the quantity given: the old is credited, the new charged', () => {
    const { prices, item, subscription, update, pending } = billingEmulator({ quantity: 2 });
    update({ items: [{ id: item.id, price: prices.pro, quantity: '2' }], proration_date: String(at(10)) });
    expect(subscription.items).toMatchObject([{ id: item.id, price: prices.pro, quantity: 2 }]);
    // credit 5000 x 2 x 20/30 = 6666.67 -> -6667; charge 9900 x 2 x 20/30 = 13200.
    expect(amounts(pending())).toEqual([-6667, 13200]);
    expect(pending().every((i) => i.proration === true)).toBe(true);
  });

  it('a quantity change credits the whole old quantity and charges the whole new one', () => {
    const { item, update, pending } = billingEmulator();
    update({ items: [{ id: item.id, quantity: '3' }], proration_date: String(at(10)) });
    // credit 5000 x 1 x 20/30 = 3333.33 -> -3333; charge 5000 x 3 x 20/30 = 10000.
    expect(amounts(pending())).toEqual([-3333, 10000]);
  });

  it('proration_behavior none prorates nothing; always_invoice bills the prorations at once', () => {
    const none = billingEmulator();
    none.update({ items: [{ id: none.item.id, price: none.prices.pro }], proration_behavior: 'none' });
    expect(none.pending()).toEqual([]);
    expect(none.subscription.items[0]?.price).toBe(none.prices.pro);

    const now = billingEmulator();
    now.update({
      items: [{ id: now.item.id, price: now.prices.pro }],
      proration_behavior: 'always_invoice',
      proration_date: String(at(10)),
    });
    expect(now.pending()).toEqual([]);
    const invoice = now.invoices().find((i) => i.billing_reason === 'subscription_update');
    // -3333 + 6600 = 3267, charged now.
    expect(invoice).toMatchObject({ total: 3267, amount_due: 3267, amount_paid: 3267, status: 'paid' });
    expect(invoice?.lines.data.map((l) => l.amount)).toEqual([-3333, 6600]);
  });

  it('refuses a proration_date outside the current period and an unknown proration_behavior, changing nothing', () => {
    const { prices, item, subscription, update, pending } = billingEmulator();
    expect(() =>
      update({ items: [{ id: item.id, price: prices.pro }], proration_date: String(at(31)) }),
    ).toThrow(/proration_date must be within the current subscription period/);
    expect(() =>
      update({ items: [{ id: item.id, price: prices.pro }], proration_behavior: 'sometimes' }),
    ).toThrow(StripeApiError);
    expect(subscription.items[0]?.price).toBe(prices.plus);
    expect(pending()).toEqual([]);
  });

  it('a coupon on the subscription applies to the prorations too', () => {
    const { prices, item, update, invoices, advanceTo } = billingEmulator({ couponPercent: 25 });
    update({ items: [{ id: item.id, price: prices.pro }], proration_date: String(at(10)) });
    advanceTo(at(30));
    const renewal = invoices().find((i) => i.billing_reason === 'subscription_cycle');
    // lines 9900, -3333, 6600 = 13167; 25% off each: 2475, -833, 1650 = 3292; total 9875.
    expect(renewal).toMatchObject({ subtotal: 13167, total: 9875, amount_paid: 9875 });
    expect(renewal?.total_discount_amounts).toEqual([expect.objectContaining({ amount: 3292 })]);
  });
});

describe('processor emulator: a proration keeps the discount it was made with (itemized proration discounts)', () => {
  it('its net_amount is the amount less that discount; the preview’s line and the invoice that takes it show the same', () => {
    const setup = billingEmulator({ country: 'DE', couponPercent: 25 });
    const change = {
      items: [{ id: setup.item.id, price: setup.prices.pro }],
      proration_date: String(at(10)),
    };
    const preview = setup.emulator.route('POST', '/v1/invoices/create_preview', {
      subscription: setup.subscription.id,
      subscription_details: change,
    }) as Money;
    const previewed = preview.lines.data
      .filter((l) => l.parent.subscription_item_details?.proration)
      .map((l) => [l.amount, l.discount_amounts.reduce((t, d) => t + d.amount, 0), l.taxes[0]?.amount]);
    // -3333 and 6600; 25% off: -833 and 1650; 19% of -2500 and 4950: -475 and 941.
    expect(previewed).toEqual([
      [-3333, -833, -475],
      [6600, 1650, 941],
    ]);

    setup.update(change);
    const items = setup.pending().map((i) => [i.amount, i.net_amount]);
    expect(items.sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual([
      [-3333, -2500],
      [6600, 4950],
    ]);
    // The coupon ends before the renewal takes them: they keep their discount all the same.
    const coupon = setup.emulator.state.coupons.OFF;
    if (!coupon) throw new Error('no coupon');
    coupon.percentOff = 50;
    setup.advanceTo(at(30));
    const renewal = setup.invoices().find((i) => i.billing_reason === 'subscription_cycle');
    const billed = renewal?.lines.data
      .filter((l) => l.parent.subscription_item_details?.proration)
      .map((l) => [l.amount, l.discount_amounts.reduce((t, d) => t + d.amount, 0)]);
    expect(billed).toEqual([
      [-3333, -833],
      [6600, 1650],
    ]);
  });
});

describe('processor emulator: customer balance', () => {
  it('a downgrade that nets a credit pays nothing out: the credit goes to the balance and pays the next invoice first', () => {
    const setup = billingEmulator({ plan: 'pro' });
    const { emulator, customer, update, invoices, advanceTo } = setup;
    const intentsBefore = Object.keys(emulator.state.paymentIntents).length;
    update({
      items: [{ id: setup.item.id, price: setup.prices.plus }],
      proration_behavior: 'always_invoice',
      proration_date: String(at(10)),
    });
    const credit = invoices().find((i) => i.billing_reason === 'subscription_update');
    // -6600 + 3333 = -3267: nothing due, -3267 to the balance.
    expect(credit).toMatchObject({
      total: -3267,
      amount_due: 0,
      amount_paid: 0,
      starting_balance: 0,
      ending_balance: -3267,
      status: 'paid',
    });
    expect(emulator.route('GET', `/v1/customers/${customer.id}`, {})).toMatchObject({ balance: -3267 });
    expect(Object.keys(emulator.state.paymentIntents)).toHaveLength(intentsBefore);
    expect(Object.keys(emulator.state.refunds)).toHaveLength(0);

    advanceTo(at(30));
    const renewal = invoices().find((i) => i.billing_reason === 'subscription_cycle');
    // 5000 - 3267 = 1733 charged; the balance is used up.
    expect(renewal).toMatchObject({
      total: 5000,
      starting_balance: -3267,
      amount_due: 1733,
      amount_paid: 1733,
      ending_balance: 0,
    });
    expect(emulator.route('GET', `/v1/customers/${customer.id}`, {})).toMatchObject({ balance: 0 });
    const intent = Object.values(emulator.state.paymentIntents).find((p) => p.invoice === renewal?.id);
    expect(intent?.amount).toBe(1733);
  });
});

describe('processor emulator: automatic tax by the customer’s country', () => {
  it('19% in DE (the country typed on Checkout): on the invoice total and on each line', () => {
    const { emulator, customer, invoices, advanceTo } = billingEmulator({ country: 'DE' });
    expect(emulator.route('GET', `/v1/customers/${customer.id}`, {})).toMatchObject({
      address: { country: 'DE' },
    });
    const [first] = invoices();
    // 5000 x 19% = 950; 5950 charged.
    expect(first).toMatchObject({
      subtotal: 5000,
      total_excluding_tax: 5000,
      total: 5950,
      amount_paid: 5950,
    });
    expect(first?.total_taxes).toEqual([
      expect.objectContaining({ amount: 950, taxable_amount: 5000, type: 'tax_rate_details' }),
    ]);
    expect(first?.lines.data[0]?.taxes.map((t) => t.amount)).toEqual([950]);
    advanceTo(at(30));
    expect(invoices().find((i) => i.billing_reason === 'subscription_cycle')?.total).toBe(5950);
  });

  it('no tax where the rate is 0 (the page’s default country, US); the rates are the emulator’s options', () => {
    expect(billingEmulator().invoices()[0]).toMatchObject({ total: 5000, total_taxes: [] });
    // 5000 + 10% = 5500.
    expect(billingEmulator({ taxRates: { default: 10 } }).invoices()[0]?.total).toBe(5500);
  });

  it('the Checkout page asks for the country and shows the tax for it', () => {
    const emulator = new ProcessorEmulator({ now: () => new Date(APRIL_1_S * 1000) });
    const customer = emulator.route('POST', '/v1/customers', { email: 'c@example.test' }) as { id: string };
    emulator.route('POST', '/v1/products', { name: 'Plan', id: 'plan' });
    const price = monthlyPrice(emulator, 'plan', 5000);
    const session = emulator.route('POST', '/v1/checkout/sessions', {
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: price.id }],
      success_url: 'https://app.test/',
      automatic_tax: { enabled: 'true' },
      customer_update: { address: 'auto' },
    }) as { id: string };
    const page = emulator.page('GET', `/c/pay/${session.id}`, {});
    expect(page.html).toContain('<select id="country" name="country"');
    expect(page.html).toContain('<option value="US" selected>');
    const updated = emulator.page('POST', `/c/pay/${session.id}`, { action: 'update_total', country: 'FR' });
    // 5000 + 20% = 6000.
    expect(updated.html).toMatch(/data-testid="total">US\$60\.00</);
    const paid = emulator.page('POST', `/c/pay/${session.id}`, {
      action: 'pay',
      card_number: '4242424242424242',
      country: 'FR',
    });
    expect(paid.status).toBe(303);
    expect(Object.values(emulator.state.invoices)[0]).toMatchObject({ total: 6000, amountPaid: 6000 });
  });
});

describe('processor emulator: invoice previews (POST /v1/invoices/create_preview)', () => {
  const upgrade = (setup: ReturnType<typeof billingEmulator>, behavior = 'create_prorations') => ({
    items: [{ id: setup.item.id, price: setup.prices.pro }],
    proration_behavior: behavior,
    proration_date: String(at(10)),
  });

  it('answers the next renewal with the change applied (prorations, new items, discount, tax), changes nothing, and is what the change then bills', () => {
    const setup = billingEmulator({ country: 'DE', couponPercent: 25 });
    const { emulator, subscription } = setup;
    const before = JSON.stringify(emulator.state);
    const preview = emulator.route('POST', '/v1/invoices/create_preview', {
      subscription: subscription.id,
      subscription_details: upgrade(setup),
    }) as Money;
    // lines 9900 (May on Pro), -3333, 6600: subtotal 13167; 25% off: 2475 - 833 + 1650 = 3292;
    // tax 19% per line: 7425 -> 1410.75 -> 1411, -2500 -> -475, 4950 -> 940.5 -> 941: 1877;
    // total 13167 - 3292 + 1877 = 11752.
    expect(preview).toMatchObject({ subtotal: 13167, total: 11752, amount_due: 11752, status: 'draft' });
    expect(preview.id.startsWith('upcoming_in')).toBe(true);
    expect(keysOf(preview)).toEqual(keysOf(fixtures.invoice));
    expect(preview.total_taxes.reduce((sum, t) => sum + t.amount, 0)).toBe(1877);
    expect(preview.lines.data.map((l) => [l.amount, l.parent.subscription_item_details?.proration])).toEqual([
      [9900, false],
      [-3333, true],
      [6600, true],
    ]);
    expect(preview.lines.data[0]?.period).toEqual({ start: at(30), end: at(61) });
    expect(JSON.stringify(emulator.state)).toBe(before);

    setup.update(upgrade(setup));
    setup.advanceTo(at(30));
    const renewal = setup.invoices().find((i) => i.billing_reason === 'subscription_cycle');
    expect(renewal).toMatchObject({ total: 11752, amount_paid: 11752 });
  });

  it('with always_invoice, the invoice the change bills at once', () => {
    const setup = billingEmulator({ country: 'DE', couponPercent: 25 });
    const preview = setup.emulator.route('POST', '/v1/invoices/create_preview', {
      customer: setup.customer.id,
      subscription: setup.subscription.id,
      subscription_details: upgrade(setup, 'always_invoice'),
    }) as Money;
    // -3333 + 6600 = 3267; 25% off: -833 + 1650 = 817; tax 19% of -2500 and 4950: -475 + 941 = 466;
    // total 3267 - 817 + 466 = 2916.
    expect(preview).toMatchObject({ billing_reason: 'subscription_update', total: 2916 });
    expect(setup.pending()).toEqual([]);
  });

  it('without changes, the next renewal as it stands; refuses a request naming neither customer nor subscription', () => {
    const setup = billingEmulator();
    expect(
      setup.emulator.route('POST', '/v1/invoices/create_preview', { customer: setup.customer.id }),
    ).toMatchObject({ total: 5000, period_start: at(30) });
    expect(() => setup.emulator.route('POST', '/v1/invoices/create_preview', {})).toThrow(
      /customer or subscription/,
    );
  });
});
