import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifySubscription } from '#core/lifecycle.ts';
import { listHistory } from '#store/history.ts';
import { getTenant } from '#store/tenants.ts';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { LOCAL_WEBHOOK_SECRET } from '../../lib/local/processor/local.ts';
import type { SubscriptionRecord } from '../../lib/local/processor/state.ts';
import { type TestControlPlane, testGateway } from '../support/gateway.ts';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { LifecycleOracle } from '../support/lifecycle-oracle.ts';

/**
 * Random sequences of processor truths and their events, delivered late, reordered and
 * duplicated, with random clock jumps, go through the real webhook route, the intake queue and
 * the sweep; the tenant's state and history must always equal a small oracle's.
 */

let api: TestControlPlane;
let emulator: ProcessorEmulator;
beforeAll(async () => {
  api = await testGateway({ processor: true });
  emulator = api.emulator as ProcessorEmulator;
  // Events are delivered by the test, in its own order; the emulator keeps them.
  emulator.setWebhook(undefined);
});
afterAll(async () => {
  await api.stop();
});

type Step =
  | { kind: 'truth'; to: 'active' | 'past_due' | 'cancel' }
  | { kind: 'deliver'; pick: number; keep: boolean }
  | { kind: 'advance'; hours: number }
  | { kind: 'sweep' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('truth' as const),
    to: fc.constantFrom('active' as const, 'past_due' as const, 'cancel' as const),
  }),
  fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat(10), keep: fc.boolean() }),
  fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 24 * 16 }) }),
  fc.constant({ kind: 'sweep' as const }),
);

const deliver = async (payload: string) => {
  const signature = ProcessorEmulator.signature(
    payload,
    LOCAL_WEBHOOK_SECRET,
    Math.floor(api.clock.now().getTime() / 1000),
  );
  const response = await api.call('POST', '/v1/webhooks/processor', {
    rawBody: payload,
    headers: { 'stripe-signature': signature },
  });
  expect(response.status).toBe(200);
};

const eventOf = (type: string, object: unknown) =>
  JSON.stringify({
    id: `evt_prop_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor(api.clock.now().getTime() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });

describe('property: intake and sweep agree with the oracle', () => {
  it('under duplicated, reordered events and clock jumps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const tenant = await api.readyTenant();
        const { json } = await api.call('POST', '/v1/billing/checkout', {
          token: tenant.sessionToken,
          body: { plan: 'standard' },
        });
        await payOnCheckout(json.url, TEST_CARDS.succeeds);
        const subscription = Object.values(emulator.state.subscriptions).find(
          (s) => s.metadata.tenantId === tenant.tenantId,
        ) as SubscriptionRecord;
        const completed = Object.values(emulator.state.events).find(
          (e) =>
            (e as { type: string; data: { object: { client_reference_id?: string } } }).type ===
              'checkout.session.completed' &&
            (e as { data: { object: { client_reference_id?: string } } }).data.object.client_reference_id ===
              tenant.tenantId,
        );
        const pending: string[] = [JSON.stringify(completed)];
        const oracle = new LifecycleOracle();
        const seen = new Set<string>();
        const truth = () =>
          classifySubscription({
            status: subscription.status,
            cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
          });

        for (const s of [
          ...steps,
          { kind: 'deliver', pick: 0, keep: false } as Step,
          { kind: 'sweep' } as Step,
        ]) {
          if (s.kind === 'truth') {
            if (s.to === 'cancel') subscription.cancelAtPeriodEnd = true;
            else {
              subscription.status = s.to;
              subscription.cancelAtPeriodEnd = false;
            }
            pending.push(
              eventOf('customer.subscription.updated', emulator.render.subscription(subscription)),
            );
          } else if (s.kind === 'deliver' && pending.length > 0) {
            const index = s.pick % pending.length;
            const payload = pending[index] as string;
            if (!s.keep) pending.splice(index, 1);
            await deliver(payload);
            // Applied once: only an event never seen before makes the tenant due.
            const id = (JSON.parse(payload) as { id: string }).id;
            if (!seen.has(id)) oracle.eventSinceLastSweep = true;
            seen.add(id);
          } else if (s.kind === 'advance') {
            api.clock.advance(s.hours * 3600);
          } else if (s.kind === 'sweep') {
            await api.sweep();
            oracle.sweep(truth(), api.clock.now().getTime());
            const stored = await getTenant(tenant.tenantId);
            expect(stored?.billingState).toBe(oracle.state);
          }
        }
        const history = (await listHistory(tenant.tenantId)).map((h) => `${h.from}->${h.to}`);
        expect(history).toEqual(oracle.history);
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
