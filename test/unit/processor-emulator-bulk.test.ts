import { describe, expect, it } from 'vitest';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { monthlyPrice } from '../support/processor-view.ts';

/*
 * The emulator at scale (issue 23's scale bench): bulk seeding without events, a customer's
 * subscriptions listed from an index, and the tick before a read skipped only while nothing can
 * have come due. Each shortcut must answer what the full walk answers.
 */
const setUp = () => {
  let now = Date.parse('2026-03-01T00:00:00Z');
  const emulator = new ProcessorEmulator({ now: () => new Date(now) });
  const product = emulator.route('POST', '/v1/products', { name: 'Stack Plan: Standard' }) as { id: string };
  const price = monthlyPrice(emulator, product.id, 2000);
  const seconds = () => Math.floor(now / 1000);
  return {
    emulator,
    price: price.id,
    seconds,
    pass: (s: number) => {
      now += s * 1000;
    },
    seed: (tenantId: string, endsIn: number, card: 'succeeds' | 'fails_later' = 'succeeds') =>
      emulator.seedSubscribers([
        {
          metadata: { tenantId, plan: 'standard' },
          items: [{ price: price.id, quantity: 2 }],
          periodStart: seconds() + endsIn - 30 * 86_400,
          periodEnd: seconds() + endsIn,
          card,
        },
      ])[0] as { customerId: string; subscriptionId: string },
  };
};

const listFor = (emulator: ProcessorEmulator, customer: string) =>
  (
    emulator.route('GET', '/v1/subscriptions', { customer, status: 'all' }) as { data: { id: string }[] }
  ).data.map((s) => s.id);

describe('the processor emulator in bulk', () => {
  it('seeds subscribed customers with a paid invoice and no events', () => {
    const { emulator, seed, price } = setUp();
    const { customerId, subscriptionId } = seed('t1', 3600, 'fails_later');
    const subscription = emulator.state.subscriptions[subscriptionId];
    expect(subscription).toMatchObject({
      customer: customerId,
      status: 'active',
      metadata: { tenantId: 't1' },
    });
    expect(subscription?.items).toMatchObject([{ price, quantity: 2 }]);
    const invoice = emulator.state.invoices[subscription?.latestInvoice ?? ''];
    expect(invoice).toMatchObject({ status: 'paid', amountPaid: 4000 });
    expect(emulator.state.paymentMethods[subscription?.defaultPaymentMethod ?? '']?.behavior).toBe(
      'fails_later',
    );
    expect(Object.keys(emulator.state.events)).toEqual([]);
  });

  it("lists a customer's subscriptions, new ones included, from its index", () => {
    const { emulator, seed, price, seconds } = setUp();
    const a = seed('a', 3600);
    const b = seed('b', 3600);
    expect(listFor(emulator, a.customerId)).toEqual([a.subscriptionId]);
    // A subscription created after the index was built is found (the id sequence moved).
    const session = emulator.route('POST', '/v1/checkout/sessions', {
      mode: 'subscription',
      customer: a.customerId,
      line_items: [{ price, quantity: '1' }],
      success_url: 'http://localhost/',
      expires_at: String(seconds() + 3600),
    }) as { id: string };
    emulator.payCheckout(session.id, '4242424242424242');
    const second = emulator.state.checkoutSessions[session.id]?.subscription ?? '';
    expect(second).not.toBe('');
    expect(listFor(emulator, a.customerId).sort()).toEqual([a.subscriptionId, second].sort());
    expect(listFor(emulator, b.customerId)).toEqual([b.subscriptionId]);
    expect(listFor(emulator, 'cus_nobody')).toEqual([]);
  });

  it('renews before a read once a period has ended, however the read is reached', () => {
    const { emulator, seed, pass } = setUp();
    const { subscriptionId } = seed('t1', 60);
    const end = emulator.state.subscriptions[subscriptionId]?.currentPeriodEnd ?? 0;
    emulator.tick();
    emulator.tickBeforeRead();
    expect(emulator.state.subscriptions[subscriptionId]?.currentPeriodEnd).toBe(end);
    pass(61);
    // Nothing was created since the last tick, but the period ended: the read's tick renews.
    emulator.tickBeforeRead();
    expect(emulator.state.subscriptions[subscriptionId]?.currentPeriodEnd).toBeGreaterThan(end);
    expect(Object.values(emulator.state.events).map((e) => (e as { type: string }).type)).toContain(
      'invoice.paid',
    );
  });
});
