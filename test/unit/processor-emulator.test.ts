import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProcessorEmulator, StripeApiError } from '../../lib/local/processor/emulator.ts';
import { parseForm } from '../../lib/local/processor/form.ts';
import { addMonths, cardBehavior } from '../../lib/local/processor/state.ts';

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
  const price = emulator.route('POST', '/v1/prices', {
    product: product.id,
    unit_amount: '5000',
    currency: 'usd',
    recurring: { interval: 'month' },
    lookup_key: 'stack_plan_plus_monthly',
  }) as { id: string };
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
    const other = emulator.route('POST', '/v1/prices', {
      product: product.id,
      unit_amount: '6000',
      currency: 'usd',
      recurring: { interval: 'month' },
    }) as {
      id: string;
    };
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
    expect(() =>
      emulator.route('POST', '/v1/checkout/sessions', {
        mode: 'subscription',
        customer: customer.id,
        line_items: [{ price: price.id }],
        success_url: 'https://x',
        expires_at: String(now + 600),
      }),
    ).toThrow(/between 30 minutes and 24 hours/);
  });

  it('automatic tax without a customer address and without customer_update[address]=auto', () => {
    const { emulator, customer, price } = emulatorWithSubscription();
    expect(() =>
      emulator.route('POST', '/v1/checkout/sessions', {
        mode: 'subscription',
        customer: customer.id,
        line_items: [{ price: price.id }],
        success_url: 'https://x',
        automatic_tax: { enabled: 'true' },
      }),
    ).toThrow(/Automatic tax calculation in Checkout requires a valid address/);
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
