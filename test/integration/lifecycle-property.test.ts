import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { listHistory } from '#store/history.ts';
import { keys } from '#store/keys.ts';
import { getTenant } from '#store/tenants.ts';
import type { InvoiceRecord, SubscriptionRecord } from '../../lib/local/processor/state.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import {
  type CancellationReason,
  LifecycleOracle,
  type ProcessorStatus,
  type ProcessorView,
} from '../support/lifecycle-oracle.ts';
import { propertyTimeout, shrinkingWithin } from '../support/property.ts';
import { deliverSigned, eventPayload } from '../support/webhooks.ts';

/**
 * Random sequences of processor truths (every subscription status, with and without a scheduled
 * cancel, every cancellation reason, failed renewals with their open invoice, cards that fail the
 * next renewal) and their events, delivered late, reordered and duplicated, with random clock
 * jumps, go through the real webhook route, the intake queue and the sweep; after every sweep the
 * tenant's state and grace deadline, and at the end its history (from, to and reason), must equal
 * the independent oracle's (test/support/lifecycle-oracle.ts).
 *
 * `npm test` runs RUNS sequences of STEPS steps, always that many however fast the machine (no
 * time limit cuts them short); a divergence is shrunk through at most SHRINK_RUNS more sequences.
 * `npm run test:deep` (LIFECYCLE_RUNS=10000) runs many more and, instead of stopping at the first
 * divergence, counts the sequences that diverge and writes the count to
 * .reports/lifecycle-deep.json (printed by `npm run bench`).
 */

const DEEP = process.env.LIFECYCLE_RUNS !== undefined;
const RUNS = Number(process.env.LIFECYCLE_RUNS ?? 60);
const STEPS = Number(process.env.LIFECYCLE_STEPS ?? 30);
const REPORT = process.env.LIFECYCLE_REPORT ?? path.join('.reports', 'lifecycle-deep.json');
/** A fresh capacity region every so many runs, so that no region's inventory grows large. */
const RUNS_PER_REGION = 50;
/** `npm test`: after a divergence, at most this many more sequences shrink it. */
const SHRINK_RUNS = 60;

const HOUR_S = 3600;
const STATUSES: ProcessorStatus[] = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'unpaid',
  'canceled',
  'paused',
];
const REASONS: CancellationReason[] = ['cancellation_requested', 'payment_failed', 'payment_disputed', null];

// The processor here is the emulator: pacing our calls to Stripe's test-mode limit (25/s) would
// only make each sweep wait; this file is about what the sweep decides, not how fast it may ask.
process.env.PROCESSOR_RATE_LIMIT_PER_SECOND = '100000';

const { api, emulator } = gatewayForFile({ processor: true });
beforeAll(() => {
  // Events are delivered by the test, in its own order; the emulator keeps them.
  emulator.setWebhook(undefined);
  // The clock stands still but for the test's jumps: what the sweep decides at a look and what the
  // oracle computes for it happen at the same instant, to the millisecond.
  const base = api.clock.now().getTime();
  api.clock.now = () => new Date(base + api.clock.offsetSeconds * 1000);
});

type Step =
  | { kind: 'truth'; status: ProcessorStatus; scheduled: boolean; reason: CancellationReason }
  | { kind: 'renewalFails'; hoursAgo: number }
  | { kind: 'recover' }
  | { kind: 'card'; failsLater: boolean }
  | { kind: 'deliver'; pick: number; keep: boolean }
  | { kind: 'advance'; seconds: number }
  | { kind: 'sweep' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('truth' as const),
      status: fc.constantFrom(...STATUSES),
      scheduled: fc.boolean(),
      reason: fc.constantFrom(...REASONS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('renewalFails' as const),
      hoursAgo: fc.integer({ min: 0, max: 24 * 25 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'recover' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('card' as const), failsLater: fc.boolean() }) },
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat(20), keep: fc.boolean() }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      // Minutes, hours around the 24 h recheck, and days around the 7 and 14 day graces and renewals.
      seconds: fc.oneof(
        fc.integer({ min: 1, max: 120 }).map((m) => m * 60),
        fc.integer({ min: 1, max: 48 }).map((h) => h * HOUR_S),
        fc.integer({ min: 1, max: 16 }).map((d) => d * 24 * HOUR_S),
      ),
    }),
  },
  // About two sweeps a sequence besides the first and last (~3.5 looks in all): each costs ~0.1 s
  // of real intake and DynamoDB work, most of the file's time; `npm run test:deep` makes up in
  // numbers.
  { weight: 2, arbitrary: fc.constant({ kind: 'sweep' as const }) },
);

const run = fc.record({
  /** Active from the start (checkout event delivered and swept at once), or still provisioning. */
  startActive: fc.boolean(),
  steps: fc.array(step, { minLength: STEPS, maxLength: STEPS }),
});

const deliver = async (payload: string) => {
  const response = await deliverSigned(api, payload);
  if (response.status !== 200) throw new Error(`webhook refused: ${response.status}`);
};

const timing = { setup: 0, sweep: 0, sweeps: 0, deliver: 0, delivers: 0, retire: 0 };
afterAll(() => {
  if (process.env.LIFECYCLE_TIMING) console.log(timing);
});

let eventSequence = 0;
const eventOf = (type: string, object: unknown) =>
  eventPayload(api, type, object, `evt_prop_${Date.now().toString(36)}_${(eventSequence++).toString(36)}`);

/** The region (with ample capacity) new tenants of this run are placed in. */
let region: { name: string; runs: number } | undefined;
const regionForRun = async (): Promise<string> => {
  if (!region || region.runs >= RUNS_PER_REGION) {
    const name = uniqueRegion();
    for (const plan of ['standard', 'plus', 'pro'] as const)
      await setCapacityTotal({ region: name, location: `${name}-a`, plan, total: 1000 }, api.clock.now());
    region = { name, runs: 0 };
  }
  region.runs++;
  return region.name;
};

/** A tenant that paid its checkout (the Checkout page's "pay"), and the processor's records of it. */
const paidTenant = async () => {
  const tenant = await api.readyTenant(await regionForRun());
  const { json } = await api.call('POST', '/v1/billing/checkout', {
    token: tenant.sessionToken,
    body: { plan: 'standard' },
  });
  const paid = await payOnCheckout(json.url, TEST_CARDS.succeeds);
  if (paid.status !== 303) throw new Error(`checkout not paid: ${paid.status}`);
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
  const session = Object.values(emulator.state.checkoutSessions).find(
    (c) => c.clientReferenceId === tenant.tenantId,
  );
  return {
    tenantId: tenant.tenantId,
    subscription,
    completed: JSON.stringify(completed),
    checkoutExpiresAt: (session?.expiresAt ?? 0) * 1000,
  };
};

const openInvoices = (subscriptionId: string): InvoiceRecord[] =>
  Object.values(emulator.state.invoices).filter(
    (i) => i.subscription === subscriptionId && i.status === 'open',
  );

/** What the processor says now (after billing whatever came due at this time). */
const viewOf = (subscription: SubscriptionRecord): ProcessorView => {
  emulator.tick();
  const open = openInvoices(subscription.id).map((i) => i.created * 1000);
  return {
    status: subscription.status,
    cancelScheduled: subscription.cancelAtPeriodEnd || subscription.cancelAt !== null,
    cancellationReason: subscription.cancellationReason,
    earliestOpenInvoiceAt: open.length > 0 ? Math.min(...open) : undefined,
  };
};

/** A renewal whose payment failed `hoursAgo` hours ago: an open invoice of that time, the subscription past_due. */
const failRenewal = (subscription: SubscriptionRecord, hoursAgo: number) => {
  const created = Math.floor(api.clock.now().getTime() / 1000) - hoursAgo * HOUR_S;
  const id = emulator.newId('in');
  const price = subscription.items[0]?.price ?? null;
  const amount = price ? (emulator.state.prices[price]?.unitAmount ?? 0) : 0;
  const invoice: InvoiceRecord = {
    id,
    customer: subscription.customer,
    subscription: subscription.id,
    billingReason: 'subscription_cycle',
    status: 'open',
    lines: [],
    subtotal: amount,
    discountAmount: 0,
    discount: null,
    tax: 0,
    total: amount,
    amountPaid: 0,
    attemptCount: 1,
    periodStart: created,
    periodEnd: created + 30 * 24 * HOUR_S,
    created,
    paidAt: null,
    paymentIntent: null,
    number: `PROP-${id.slice(-6)}`,
    subscriptionMetadata: { ...subscription.metadata },
  };
  emulator.state.invoices[id] = invoice;
  subscription.latestInvoice = id;
  subscription.status = 'past_due';
  return invoice;
};

/** Takes a finished run's tenant and subscription out of later runs' sweeps and renewals. */
const retire = async (tenantId: string, subscription: SubscriptionRecord, stoppedEarly: boolean) => {
  // A run that ended normally swept its last events; one stopped at a divergence may have left some.
  if (stoppedEarly) await api.drainQueue();
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.tenant(tenantId),
      UpdateExpression: 'REMOVE dueAt, GSI2PK, GSI2SK',
    }),
  );
  // The emulator's records of this run go too: it scans them on every request, and the deep run
  // makes 10,000 tenants.
  const state = emulator.state;
  const customer = subscription.customer;
  delete state.subscriptions[subscription.id];
  delete state.customers[customer];
  for (const invoice of Object.values(state.invoices))
    if (invoice.subscription === subscription.id) {
      delete state.invoices[invoice.id];
      for (const payment of Object.values(state.invoicePayments))
        if (payment.invoice === invoice.id) delete state.invoicePayments[payment.id];
    }
  for (const record of [state.checkoutSessions, state.paymentMethods, state.paymentIntents])
    for (const [id, item] of Object.entries(record)) if (item.customer === customer) delete record[id];
  for (const key of Object.keys(state.idempotency)) if (key.includes(tenantId)) delete state.idempotency[key];
  for (const [id, event] of Object.entries(state.events)) {
    const object = (event as { data: { object: { customer?: string } } }).data.object;
    if (object.customer === customer) delete state.events[id];
  }
  emulator.calls.length = 0;
};

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
const shown = (transitions: { from: string; to: string; reason: string }[]) =>
  transitions.map((t) => `${t.from}->${t.to} (${t.reason})`);

/** One sequence: answers what diverged from the oracle (empty when nothing did). */
const runSequence = async ({ startActive, steps }: { startActive: boolean; steps: Step[] }) => {
  const t0 = performance.now();
  const { tenantId, subscription, completed, checkoutExpiresAt } = await paidTenant();
  timing.setup += performance.now() - t0;
  const oracle = new LifecycleOracle();
  oracle.checkoutExpiresAt = checkoutExpiresAt;
  const seen = new Set<string>();
  const pending: string[] = [completed];
  const trail: string[] = [];
  const problems: string[] = [];

  const deliverAt = async (index: number, keep: boolean) => {
    const payload = pending[index] as string;
    if (!keep) pending.splice(index, 1);
    const t1 = performance.now();
    await deliver(payload);
    timing.deliver += performance.now() - t1;
    timing.delivers++;
    // Applied once: only an event never seen before makes the tenant due.
    const id = (JSON.parse(payload) as { id: string }).id;
    if (!seen.has(id)) oracle.eventSinceLastSweep = true;
    seen.add(id);
  };

  const sweepAndCompare = async () => {
    // A millisecond on: no two sweeps share an instant (a stand-still clock is the test's, not the world's).
    api.clock.advance(0.001);
    const now = api.clock.now().getTime();
    const view = viewOf(subscription);
    const before = oracle.state;
    const t1 = performance.now();
    await api.sweep();
    timing.sweep += performance.now() - t1;
    timing.sweeps++;
    const expected = oracle.sweep(view, now);
    trail.push(
      `sweep at ${iso(now)} sees ${JSON.stringify(view)} -> ${shown(expected).join(', ') || 'no change'}`,
    );
    const stored = await getTenant(tenantId);
    if (
      stored?.billingState !== oracle.state ||
      (stored?.graceDeadline ?? null) !== iso(oracle.graceDeadline)
    )
      problems.push(
        `after the sweep at ${iso(now)} (was ${before}): stored ${stored?.billingState} grace ${stored?.graceDeadline ?? null}, oracle ${oracle.state} grace ${iso(oracle.graceDeadline)}`,
      );
    // Leaving after the suspended grace ends a live subscription at the processor at once (one that
    // ended or never started, `canceled` or `incomplete_expired`, is left as it is).
    const live = view.status !== 'canceled' && view.status !== 'incomplete_expired';
    if (
      expected.some((t) => t.reason === 'suspended_grace_elapsed') &&
      live &&
      subscription.status !== 'canceled'
    )
      problems.push(
        `suspended grace elapsed but the processor's subscription is still ${subscription.status}`,
      );
  };

  try {
    if (startActive) {
      await deliverAt(0, false);
      await sweepAndCompare();
    }
    // Past the Checkout Session's expiry before anything else, as a tenant that pays and waits would be.
    api.clock.advance(25 * HOUR_S);
    trail.push(`start ${startActive ? 'active' : 'provisioning'}, then +25 h`);
    let changedSinceSweep = true;

    for (const s of [
      ...steps,
      { kind: 'deliver', pick: 0, keep: false } as Step,
      { kind: 'sweep' } as Step,
    ]) {
      if (problems.length > 0) break;
      if (s.kind !== 'sweep') trail.push(JSON.stringify(s));
      if (s.kind === 'truth') {
        subscription.status = s.status;
        subscription.cancelAtPeriodEnd = s.scheduled;
        subscription.cancelAt = s.scheduled ? subscription.currentPeriodEnd : null;
        subscription.cancellationReason = s.reason;
        const nowS = Math.floor(api.clock.now().getTime() / 1000);
        if (s.status === 'canceled') {
          subscription.canceledAt ??= nowS;
          subscription.endedAt ??= nowS;
        } else {
          subscription.canceledAt = s.scheduled ? nowS : null;
          subscription.endedAt = null;
        }
        pending.push(
          eventOf(
            s.status === 'canceled' ? 'customer.subscription.deleted' : 'customer.subscription.updated',
            emulator.render.subscription(subscription),
          ),
        );
      } else if (s.kind === 'renewalFails') {
        const invoice = failRenewal(subscription, s.hoursAgo);
        pending.push(eventOf('invoice.payment_failed', emulator.render.invoice(invoice)));
        pending.push(eventOf('customer.subscription.updated', emulator.render.subscription(subscription)));
      } else if (s.kind === 'recover') {
        for (const invoice of openInvoices(subscription.id)) {
          invoice.status = 'paid';
          invoice.amountPaid = invoice.total;
          invoice.paidAt = Math.floor(api.clock.now().getTime() / 1000);
          pending.push(eventOf('invoice.paid', emulator.render.invoice(invoice)));
        }
        subscription.status = 'active';
        subscription.cancelAtPeriodEnd = false;
        subscription.cancelAt = null;
        pending.push(eventOf('customer.subscription.updated', emulator.render.subscription(subscription)));
      } else if (s.kind === 'card') {
        const method = subscription.defaultPaymentMethod
          ? emulator.state.paymentMethods[subscription.defaultPaymentMethod]
          : undefined;
        if (method) method.behavior = s.failsLater ? 'fails_later' : 'succeeds';
      } else if (s.kind === 'deliver') {
        if (pending.length > 0) await deliverAt(s.pick % pending.length, s.keep);
      } else if (s.kind === 'advance') {
        // The emulator bills what came due (renewals, scheduled cancels) as the clock moves.
        api.clock.advance(s.seconds);
      } else if (changedSinceSweep) {
        await sweepAndCompare();
      }
      // A sweep right after another, with nothing done in between, could only repeat it: skipped.
      changedSinceSweep = s.kind !== 'sweep';
    }
    if (problems.length === 0) {
      const history = shown(await listHistory(tenantId));
      const expected = shown(oracle.transitions);
      if (JSON.stringify(history) !== JSON.stringify(expected))
        problems.push(`history ${JSON.stringify(history)}, oracle ${JSON.stringify(expected)}`);
    }
  } finally {
    const t1 = performance.now();
    await retire(tenantId, subscription, problems.length > 0);
    timing.retire += performance.now() - t1;
  }
  return problems.length > 0 ? [...problems, 'steps:', ...trail] : [];
};

describe('property: intake and sweep agree with an independent oracle', () => {
  it(
    `${RUNS} sequences of ${STEPS} steps: every status, scheduled cancels, cancellation reasons, failed renewals, duplicates, reorders and clock jumps`,
    async () => {
      let sequences = 0;
      let divergences = 0;
      const samples: string[][] = [];
      const started = performance.now();
      const shrinking = shrinkingWithin(SHRINK_RUNS);
      const result = await fc.check(
        fc.asyncProperty(
          run,
          shrinking(async (sequence) => {
            sequences++;
            const problems = await runSequence(sequence);
            if (problems.length === 0) return true;
            if (!DEEP) throw new Error(problems.join('\n'));
            // The deep run counts every diverging sequence instead of stopping at the first.
            divergences++;
            if (samples.length < 5) samples.push(problems);
            return true;
          }),
        ),
        // A failure in `npm test` is shrunk (bounded), then reported with the smallest sequence found.
        { numRuns: RUNS, ...(DEEP ? { endOnFailure: true } : {}) },
      );
      if (DEEP) {
        mkdirSync(path.dirname(REPORT), { recursive: true });
        writeFileSync(
          REPORT,
          `${JSON.stringify(
            {
              sequences,
              steps: STEPS,
              divergences,
              seed: result.seed,
              finishedAt: new Date().toISOString(),
              seconds: Math.round((performance.now() - started) / 1000),
              samples,
            },
            null,
            2,
          )}\n`,
        );
        expect(result.failed, String(result.errorInstance)).toBe(false);
        expect(divergences, samples.map((s) => s.join('\n')).join('\n\n')).toBe(0);
      } else if (!result.failed) {
        expect(result.numRuns).toBe(RUNS);
      } else {
        throw new Error(
          `diverged from the oracle (seed ${result.seed}, path ${result.counterexamplePath}):\n${(result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance)}`,
        );
      }
    },
    propertyTimeout(DEEP ? RUNS : RUNS + SHRINK_RUNS, 5_000),
  );
});
