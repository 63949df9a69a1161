import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../support/hosted-pages.ts';
import {
  DAY,
  eventually,
  localClient,
  type PayingTenant,
  PLAN_CHANGE_STEPS,
  prorationOf,
  QUEUED_PLAN_CHANGE_STEPS,
  sharedCloud,
  statusesOf,
} from '../support/local-cloud.ts';
import { executionStatusOf } from '../support/local-server.ts';
import { waitingForWork } from '../support/plan-change-answers.ts';

/**
 * Plan Changes end to end on the shared `npm start`, over HTTP, with time travel: the workflow is
 * the local Step Functions stand-in `npm start` runs (Wait states of 200 ms), the Stacks'
 * reference Dispatchers are ticked by hand (each test its own), the processor is the emulator,
 * read through its own API, and the mail is read from `GET /_local/mail`.
 *
 * Every tenant has the Home Region `eu` (the only one `npm start` signs tenants up in), so
 * capacity is the server's: the first describe fills Pro everywhere in `eu` (and gives it back
 * after), the second runs with the room the shared server has. After each test, the emails of
 * the changes it ended: exactly one for a completed, rolled back or expired change, none for a
 * cancelled or superseded one.
 */

const server = sharedCloud();
const cloud = localClient(() => server);
const { as, call } = cloud;

type Tenant = PayingTenant;

/** A tenant that paid for `plan`, whose first Stack runs a reference Dispatcher where it is placed. */
const payingTenant = (name: string, plan: string, card: string = TEST_CARDS.succeeds) =>
  cloud.payingTenant(`pc-${name}`, plan, { card });

const confirm = cloud.confirmPlanChange;
const read = async (tenant: Tenant, changeId: string) => {
  const answer = await as(tenant, 'GET', `/v1/plan-changes/${changeId}`);
  expect(answer.status).toBe(200);
  return answer.body;
};
const fault = (tenant: Tenant, step: string, kind: 'fail' | 'delay', extra: Record<string, unknown> = {}) =>
  call('POST', '/_local/fleet/faults', { body: { dispatcherId: tenant.dispatcherId, step, kind, ...extra } });
const dispatcherStatus = async (tenant: Tenant) =>
  (
    (await call('GET', '/_local/fleet')).body.dispatchers as { dispatcherId: string; admission: string }[]
  ).find((d) => d.dispatcherId === tenant.dispatcherId);
const tick = (tenant: Tenant) => cloud.tick(tenant.dispatcherId);

/** Ticks the tenant's Dispatcher (it polls once) until the change reaches one of `statuses`. */
const until = (tenant: Tenant, changeId: string, statuses: string[], seconds = 40) =>
  eventually(
    async () => {
      await tick(tenant);
      return read(tenant, changeId);
    },
    (change) => statuses.includes(change.status),
    { timeoutMs: seconds * 1000, what: `the change reaching ${statuses.join('/')}` },
  );

const itemsOf = cloud.itemsOf;
/** Proration items waiting for the next invoice: what a committed Plan Change leaves at the processor. */
const pendingItemsOf = async (tenant: Tenant) =>
  (
    await cloud.processor(
      `/v1/invoiceitems?customer=${(await cloud.subscriptionOf(tenant)).customer}&pending=true`,
    )
  ).data as { amount: number; proration: boolean }[];
const reservedPlaces = async () => (await cloud.inventory()).reduce((sum, slot) => sum + slot.reserved, 0);

/** The change's Step Functions execution (named after the change), from the local stand-in's API. */
const executionStatus = (changeId: string) => executionStatusOf(server.environment(), changeId);
/** Waits until the execution has ended (the task after the last record write still has to return). */
const executionEnded = (changeId: string) =>
  eventually(
    () => executionStatus(changeId),
    (status) => status !== 'RUNNING',
    { timeoutMs: 10_000, what: `the execution of ${changeId} ending` },
  );

/** The changes the current test ended, for the emails checked after it. */
let ended: { tenant: Tenant; changeId: string; status: string; toPlan: string }[] = [];
const remember = (tenant: Tenant, change: { changeId: string; status: string; requestedPlan: string }) =>
  ended.push({ tenant, changeId: change.changeId, status: change.status, toPlan: change.requestedPlan });

const PLAN_NAMES: Record<string, string> = { standard: 'Standard', plus: 'Plus', pro: 'Pro' };

beforeEach(() => {
  ended = [];
});
afterEach(async () => {
  if (ended.length === 0) return;
  // Two sweeps: the outbox sends each email once, and a second sweep sends none again.
  await cloud.sweep();
  await cloud.sweep();
  const subjectOf = (e: (typeof ended)[number]) =>
    e.status === 'completed'
      ? `${e.tenant.stackName} now runs on the ${PLAN_NAMES[e.toPlan]} Plan`
      : e.status === 'rolled_back'
        ? `The Plan Change of ${e.tenant.stackName} was rolled back`
        : e.status === 'expired'
          ? `The Plan Change of ${e.tenant.stackName} expired`
          : undefined;
  for (const login of new Set(ended.map((e) => e.tenant.login))) {
    const mine = ended.filter((e) => e.tenant.login === login);
    const stackName = mine[0]?.tenant.stackName ?? '';
    const aboutChanges = (await cloud.mailTo(`${login}@users.code-host.test`))
      .map((m) => m.subject)
      .filter((s) => s.includes(`Plan Change of ${stackName}`) || s.startsWith(`${stackName} now runs on`));
    expect({ login, subjects: aboutChanges.sort() }).toEqual({
      login,
      subjects: mine
        .map(subjectOf)
        .filter((s) => s !== undefined)
        .sort(),
    });
  }
});

describe('Plan Changes on npm start: while no place for Pro is free in the Home Region', () => {
  let giveBack: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    giveBack = await cloud.fillPlan('pro');
  }, 60_000);
  afterAll(() => giveBack(), 60_000);

  it('a queued change completes when capacity opens in another location of the Home Region; the email says the IP address changed', async () => {
    const tenant = await payingTenant('queued', 'plus');
    const reservedBefore = await reservedPlaces();
    const preview = await as(tenant, 'POST', `/v1/stacks/${tenant.stackId}/plan-changes/preview`, {
      plan: 'pro',
    });
    expect(preview.status).toBe(200);
    expect(preview.body.requested.capacity).toBe('would_queue');
    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.status).toBe(202);
    expect(confirmed.body).toMatchObject({ status: 'waiting_for_capacity', cancellable: true });
    // It looks (every 200 ms here) and finds nothing (until it expires: the test below).
    await tick(tenant);
    expect((await read(tenant, confirmed.body.changeId)).status).toBe('waiting_for_capacity');

    await cloud.setTotal('eu-north-1a', 'pro', 1, true);
    const done = await until(tenant, confirmed.body.changeId, ['completed', 'rolled_back', 'expired']);
    expect(done.status).toBe('completed');
    expect(statusesOf(done)).toEqual(QUEUED_PLAN_CHANGE_STEPS);
    expect(done.location).toEqual({ from: tenant.location, to: 'eu-north-1a', addressChanged: true });
    const stack = (await as(tenant, 'GET', `/v1/stacks/${tenant.stackId}`)).body;
    expect(stack).toMatchObject({ plan: 'pro', location: 'eu-north-1a' });
    expect(await itemsOf(tenant)).toEqual(['stack_plan_pro_monthlyx1']);
    expect(await executionEnded(done.changeId)).toBe('SUCCEEDED');
    // The place it found became the Stack's; nothing stays held.
    expect(
      (await cloud.inventory()).find((s) => s.location === 'eu-north-1a' && s.plan === 'pro'),
    ).toMatchObject({ used: 1, free: 0 });
    expect(await reservedPlaces()).toBe(reservedBefore);
    remember(tenant, done);

    await cloud.sweep();
    const mail = await cloud.mailTo(`${tenant.login}@users.code-host.test`);
    const completion = mail.filter((m) => m.subject === `${tenant.stackName} now runs on the Pro Plan`);
    expect(completion).toHaveLength(1);
    expect(completion[0]?.text).toContain('eu-north-1a');
    expect(completion[0]?.text).toContain('IP address changed');
  });

  it('a second confirmation supersedes a queued change; the newer one completes, both stay in the history', async () => {
    const tenant = await payingTenant('supersede', 'plus');
    const first = await confirm(tenant, 'pro');
    expect(first.body.status).toBe('waiting_for_capacity');
    const second = await confirm(tenant, 'standard');
    expect(second.status).toBe(202);
    expect(second.body.status).toBe('waiting_for_work');
    const superseded = await read(tenant, first.body.changeId);
    expect(superseded).toMatchObject({ status: 'superseded', cancellable: false });
    const done = await until(tenant, second.body.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    // The stopped execution changes nothing any more.
    expect(await executionEnded(first.body.changeId)).toBe('ABORTED');
    expect((await read(tenant, first.body.changeId)).status).toBe('superseded');
    const listed = await as(tenant, 'GET', `/v1/plan-changes?stackId=${tenant.stackId}`);
    expect(listed.status).toBe(200);
    expect(
      listed.body.planChanges.map((c: { changeId: string; status: string }) => [c.changeId, c.status]),
    ).toEqual([
      [second.body.changeId, 'completed'],
      [first.body.changeId, 'superseded'],
    ]);
    expect(await itemsOf(tenant)).toEqual(['stack_plan_standard_monthlyx1']);
    expect(await executionStatus(first.body.changeId)).toBe('ABORTED');
    expect(await executionEnded(second.body.changeId)).toBe('SUCCEEDED');
    remember(tenant, superseded);
    remember(tenant, done);
  });

  it('a queued change expires 7 days after confirmation: the Plan and billing untouched', async () => {
    const tenant = await payingTenant('expire', 'plus');
    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.body.status).toBe('waiting_for_capacity');
    expect(Date.parse(confirmed.body.expiresAt) - Date.parse(confirmed.body.confirmedAt)).toBe(
      7 * DAY * 1000,
    );
    await cloud.advance(7 * DAY + 60);
    // The 7-day session expired on the way: `as` signs in again, as the tenant would.
    const expired = await until(tenant, confirmed.body.changeId, ['expired', 'completed', 'rolled_back']);
    expect(expired.status).toBe('expired');
    expect(expired.recovery).toContain('confirm the change again');
    expect(expired.final).toBeNull();
    const stack = (await as(tenant, 'GET', `/v1/stacks/${tenant.stackId}`)).body;
    expect(stack.plan).toBe('plus');
    expect(await itemsOf(tenant)).toEqual(['stack_plan_plus_monthlyx1']);
    expect(await pendingItemsOf(tenant)).toEqual([]);
    expect(await executionEnded(expired.changeId)).toBe('SUCCEEDED');
    remember(tenant, expired);
  });
});

describe('Plan Changes on npm start: with room for Pro in the seeded locations', () => {
  it('an immediate upgrade completes with the final adjustment beside the estimate; the next invoice carries it', async () => {
    const tenant = await payingTenant('upgrade', 'plus');
    await cloud.advance(3 * DAY);
    const preview = await as(tenant, 'POST', `/v1/stacks/${tenant.stackId}/plan-changes/preview`, {
      plan: 'pro',
    });
    expect(preview.body.requested.capacity).toBe('placeable_in_location');
    const confirmed = await confirm(tenant, 'pro', 'upgrade-1');
    expect(confirmed.status).toBe(202);
    expect(confirmed.body).toMatchObject({ ...waitingForWork('plus', 'pro'), final: null });
    const estimated = confirmed.body.estimate.adjustment as number;
    expect(estimated).toBeGreaterThan(0);
    expect(Math.abs(estimated - preview.body.estimate.adjustment)).toBeLessThanOrEqual(2);

    const done = await until(tenant, confirmed.body.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(statusesOf(done)).toEqual(PLAN_CHANGE_STEPS);
    expect(done.location).toMatchObject({
      from: tenant.location,
      to: tenant.location,
      addressChanged: false,
    });
    expect(done.final).toMatchObject({ estimatedAdjustment: estimated });
    expect(done.final.adjustment).toBeGreaterThan(0);
    expect(done.final.difference).toBe(done.final.adjustment - estimated);
    expect(done.final.explanation).toEqual(expect.any(String));
    // The processor: the price swapped, and the exact adjustment waits for the next invoice.
    expect(await itemsOf(tenant)).toEqual(['stack_plan_pro_monthlyx1']);
    const pending = await pendingItemsOf(tenant);
    expect(pending.filter((i) => i.proration).reduce((sum, i) => sum + i.amount, 0)).toBe(
      done.final.adjustment,
    );
    expect((await as(tenant, 'GET', `/v1/stacks/${tenant.stackId}`)).body.plan).toBe('pro');
    // The same confirmation again answers the same change and starts nothing.
    const again = await confirm(tenant, 'pro', 'upgrade-1');
    expect(again.status).toBe(202);
    expect(again.body.changeId).toBe(confirmed.body.changeId);
    expect(await executionEnded(done.changeId)).toBe('SUCCEEDED');
    expect(
      (await as(tenant, 'GET', `/v1/plan-changes?stackId=${tenant.stackId}`)).body.planChanges,
    ).toHaveLength(1);
    remember(tenant, done);

    // Past the billing date: the renewal carries exactly the adjustment the change showed.
    await cloud.pastRenewalOf(tenant);
    const renewal = (await cloud.invoicesOf(tenant)).find((i) => i.billing_reason === 'subscription_cycle');
    expect(renewal).toBeDefined();
    expect(prorationOf(renewal)).toBe(done.final.adjustment);
    expect(renewal?.total).toBe(6000 + done.final.adjustment);
    expect(await pendingItemsOf(tenant)).toEqual([]);

    // The completion email told the tenant the same amount.
    await cloud.sweep();
    const mail = await cloud.mailTo(`${tenant.login}@users.code-host.test`);
    const completion = mail.find((m) => m.subject === `${tenant.stackName} now runs on the Pro Plan`);
    expect(completion?.text).toContain(`US$${(done.final.adjustment / 100).toFixed(2)}`);
  });

  it('a downgrade credits the balance and the next invoice is lower; no refund is created', async () => {
    const tenant = await payingTenant('downgrade', 'pro');
    const refundsBefore = (await cloud.processor('/v1/refunds')).data.length as number;
    await cloud.advance(2 * DAY);
    const confirmed = await confirm(tenant, 'standard');
    expect(confirmed.status).toBe(202);
    expect(confirmed.body.estimate.adjustment).toBeLessThan(0);
    const done = await until(tenant, confirmed.body.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.final.adjustment).toBeLessThan(0);
    expect(await itemsOf(tenant)).toEqual(['stack_plan_standard_monthlyx1']);
    remember(tenant, done);

    await cloud.pastRenewalOf(tenant);
    const renewal = (await cloud.invoicesOf(tenant)).find((i) => i.billing_reason === 'subscription_cycle');
    expect(prorationOf(renewal)).toBe(done.final.adjustment);
    // Lower than a month of Standard by the credit, and never below nothing.
    expect(renewal?.total).toBe(4000 + done.final.adjustment);
    expect(renewal?.amount_due).toBeLessThan(4000);
    expect(renewal?.amount_due).toBeGreaterThanOrEqual(0);
    expect((await cloud.processor('/v1/refunds')).data).toHaveLength(refundsBefore);
  });

  it('a cancel while Waiting for Work succeeds: admission reopens, billing untouched', async () => {
    const tenant = await payingTenant('cancel', 'plus');
    const reservedBefore = await reservedPlaces();
    // An active run keeps the change waiting for work.
    const runs = await call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/runs`, {
      body: { start: 1 },
    });
    expect(runs.body).toMatchObject({ started: 1, activeRuns: 1 });
    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.body.status).toBe('waiting_for_work');
    // The Dispatcher learns of the change on a poll: its admission pauses.
    await eventually(
      async () => {
        await tick(tenant);
        return (await dispatcherStatus(tenant))?.admission;
      },
      (admission) => admission === 'paused',
      { what: 'admission paused' },
    );
    expect((await read(tenant, confirmed.body.changeId)).status).toBe('waiting_for_work');
    const cancelled = await as(tenant, 'POST', `/v1/plan-changes/${confirmed.body.changeId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancellable: false });
    expect(await reservedPlaces()).toBe(reservedBefore);
    await tick(tenant);
    expect((await dispatcherStatus(tenant))?.admission).toBe('open');
    // Once its execution has ended, the change is still cancelled.
    expect(await executionEnded(confirmed.body.changeId)).not.toBe('RUNNING');
    expect((await read(tenant, confirmed.body.changeId)).status).toBe('cancelled');
    expect((await as(tenant, 'GET', `/v1/stacks/${tenant.stackId}`)).body.plan).toBe('plus');
    expect(await itemsOf(tenant)).toEqual(['stack_plan_plus_monthlyx1']);
    expect(await pendingItemsOf(tenant)).toEqual([]);
    remember(tenant, cancelled.body);
  });

  it('a cancel after Preparing began is refused with plan_change_not_cancellable; the change then completes', async () => {
    const tenant = await payingTenant('late-cancel', 'plus');
    expect((await fault(tenant, 'backup', 'delay', { polls: 6 })).status).toBe(200);
    const confirmed = await confirm(tenant, 'pro');
    await until(tenant, confirmed.body.changeId, ['preparing']);
    const refused = await as(tenant, 'POST', `/v1/plan-changes/${confirmed.body.changeId}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('plan_change_not_cancellable');
    const done = await until(tenant, confirmed.body.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    remember(tenant, done);
  });

  for (const [step, status] of [
    ['switch', 'Switching'],
    ['verify', 'Verifying'],
  ] as const) {
    it(`a fault in ${status} rolls back with billing untouched`, async () => {
      const tenant = await payingTenant(`fail-${step}`, 'plus');
      const reservedBefore = await reservedPlaces();
      expect((await fault(tenant, step, 'fail', { reason: `disk full in ${step}` })).status).toBe(200);
      const confirmed = await confirm(tenant, 'pro');
      const done = await until(tenant, confirmed.body.changeId, ['completed', 'rolled_back']);
      expect(done.status).toBe('rolled_back');
      expect(done.history.map((h: { status: string }) => h.status)).toContain(status.toLowerCase());
      // Our reason for the step; the Dispatcher's words stay with operators.
      expect(done.reasonCode).toBe(`${step}_failed`);
      expect(done.outcome).not.toContain('disk full');
      expect(done.final).toBeNull();
      expect((await as(tenant, 'GET', `/v1/stacks/${tenant.stackId}`)).body.plan).toBe('plus');
      // No subscription change at the processor: the same item, no proration waiting.
      expect(await itemsOf(tenant)).toEqual(['stack_plan_plus_monthlyx1']);
      expect(await pendingItemsOf(tenant)).toEqual([]);
      expect(await reservedPlaces()).toBe(reservedBefore);
      await tick(tenant);
      expect((await dispatcherStatus(tenant))?.admission).toBe('open');
      expect(await executionEnded(done.changeId)).toBe('SUCCEEDED');
      remember(tenant, done);
    });
  }

  it('each refusal answers its code: plan_unchanged, operation_in_progress, stack_not_found, billing_overdue', async () => {
    const tenant = await payingTenant('refused', 'plus');
    const overdue = await payingTenant('overdue', 'plus', TEST_CARDS.failsLater);

    const same = await confirm(tenant, 'plus');
    expect([same.status, same.body.error?.code]).toEqual([409, 'plan_unchanged']);

    expect((await fault(tenant, 'backup', 'delay', { polls: 50 })).status).toBe(200);
    const first = await confirm(tenant, 'pro');
    expect(first.status).toBe(202);
    await until(tenant, first.body.changeId, ['preparing']);
    const busy = await confirm(tenant, 'standard');
    expect([busy.status, busy.body.error?.code]).toEqual([409, 'operation_in_progress']);

    const unknown = await as(tenant, 'POST', '/v1/stacks/stk_nope/plan-changes', { plan: 'pro' });
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'stack_not_found']);

    const listed = await as(tenant, 'GET', `/v1/plan-changes?stackId=${tenant.stackId}`);
    expect(listed.body.planChanges.map((c: { changeId: string }) => c.changeId)).toEqual([
      first.body.changeId,
    ]);
    const cleared = await call('DELETE', `/_local/fleet/faults?dispatcherId=${tenant.dispatcherId}`);
    expect(cleared.status).toBe(200);
    remember(tenant, await until(tenant, first.body.changeId, ['completed', 'rolled_back']));

    // The renewal fails for the second tenant: past-due, and its changes are refused.
    await cloud.pastRenewalOf(overdue);
    await cloud.billingStateOnceSwept(overdue, 'past-due');
    const overdueRefused = await confirm(overdue, 'pro');
    expect([overdueRefused.status, overdueRefused.body.error?.code]).toEqual([409, 'billing_overdue']);
    expect(
      (await as(overdue, 'GET', `/v1/plan-changes?stackId=${overdue.stackId}`)).body.planChanges,
    ).toEqual([]);
  });

  it('the export is served at /v1/plan-changes/export as JSON Lines, not taken for a change id', async () => {
    const tenant = await payingTenant('export', 'plus');
    const confirmed = await confirm(tenant, 'standard');
    const done = await until(tenant, confirmed.body.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    remember(tenant, done);
    const response = await fetch(`${server.url}/v1/plan-changes/export`, {
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({ changeId: confirmed.body.changeId, status: 'completed' }),
    ]);
    // The audit export names no processor object.
    const subscription = await cloud.subscriptionOf(tenant);
    expect(text).not.toContain(subscription.id);
    expect(text).not.toContain(subscription.customer);
    // An id that is not one is still answered as a missing change.
    const missing = await as(tenant, 'GET', '/v1/plan-changes/pc_nope');
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'plan_change_not_found']);
  });
});
