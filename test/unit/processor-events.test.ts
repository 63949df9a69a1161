import { describe, expect, it } from 'vitest';
import { eventFacts, isProcessorEvent } from '#ports/processor/events.ts';

const event = (type: string, object: Record<string, unknown>) => ({ id: 'evt_1', type, data: { object } });

describe('what the sweep takes from a processor event: only who it concerns', () => {
  it('a completed checkout names the tenant (client_reference_id) and the new subscription', () => {
    expect(
      eventFacts(
        event('checkout.session.completed', {
          object: 'checkout.session',
          client_reference_id: 't1',
          customer: 'cus_1',
          subscription: 'sub_1',
        }),
      ),
    ).toEqual({
      eventId: 'evt_1',
      type: 'checkout.session.completed',
      tenantId: 't1',
      customerId: 'cus_1',
      subscriptionId: 'sub_1',
    });
  });

  it('a subscription event names the tenant (metadata) and is itself the subscription', () => {
    expect(
      eventFacts(
        event('customer.subscription.updated', {
          object: 'subscription',
          id: 'sub_2',
          metadata: { tenantId: 't2' },
          customer: 'cus_2',
        }),
      ),
    ).toMatchObject({
      tenantId: 't2',
      subscriptionId: 'sub_2',
    });
  });

  it('an invoice names the tenant through parent.subscription_details', () => {
    const invoice = {
      object: 'invoice',
      id: 'in_1',
      customer: 'cus_3',
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: 'sub_3', metadata: { tenantId: 't3' } },
      },
    };
    expect(eventFacts(event('invoice.payment_failed', invoice))).toMatchObject({
      tenantId: 't3',
      subscriptionId: 'sub_3',
      customerId: 'cus_3',
    });
  });

  it('an object without our metadata still names its customer, through which the tenant is found', () => {
    expect(
      eventFacts(event('payment_method.attached', { object: 'payment_method', customer: 'cus_4' })),
    ).toMatchObject({
      tenantId: undefined,
      customerId: 'cus_4',
      subscriptionId: undefined,
    });
  });

  it('recognises a processor event and nothing else', () => {
    expect(isProcessorEvent(event('invoice.paid', {}))).toBe(true);
    for (const other of [
      null,
      'text',
      { id: 'x' },
      { id: 'x', type: 'y' },
      { id: 'x', type: 'y', data: {} },
      { id: 'x', type: 'y', data: { object: null } },
      { id: 'x', type: 'y', data: { object: [] } },
    ]) {
      expect(isProcessorEvent(other)).toBe(false);
    }
  });
});
