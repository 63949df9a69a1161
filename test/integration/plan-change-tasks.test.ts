import { describe, expect, it } from 'vitest';
import {
  DISPATCHER_STEP_LIMIT_HOURS,
  DRAIN_LIMIT_HOURS,
  type PlanChangeExecution,
} from '#core/plan-change.ts';
import { CAPACITY_LOOK_SECONDS, nextDispatcherLook } from '#core/plan-change-pacing.ts';
import type { PlanValue } from '#core/plans.ts';
import { setCapacityTotal } from '#store/capacity.ts';
import { changeHolder, getPlanChange } from '#store/plan-changes.ts';
import { getStack } from '#store/stacks.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { completeChange } from '../../functions/plan-changes/complete.ts';
import { dispatcherStep } from '../../functions/plan-changes/dispatcher-step.ts';
import { drainWork } from '../../functions/plan-changes/drain-work.ts';
import { findCapacity } from '../../functions/plan-changes/find-capacity.ts';
import { executionOf } from '../../functions/plan-changes/record.ts';
import { resumeOpenPlanChanges } from '../../functions/plan-changes/resume.ts';
import { rollBack } from '../../functions/plan-changes/roll-back.ts';
import { handler as commitBillingTask } from '../../functions/workflow-tasks/commit-billing.ts';
import { PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueRegion } from '../support/gateway.ts';
import { openPlaces, outboxFor, placesHold, planChangeWorld, slotOf } from '../support/plan-change-world.ts';

/**
 * Each task of the Plan Change workflow (functions/plan-changes/*), called as its handler calls it,
 * with the execution state the state machine gives it, on changes our routes brought into each
 * state: the step and wait it answers for every branch, and what it stored (the change, the Stack,
 * the places). The workflow here is inert (every Task state ends the execution at once), so only
 * the test moves the changes; Dispatcher reports go through the Dispatcher's own route, time
 * through the file's clock.
 */

const inert = async (input: PlanChangeExecution): Promise<PlanChangeExecution> => ({
  ...input,
  step: 'done',
  waitSeconds: 0,
});
const { api } = gatewayForFile({
  processor: true,
  stepFunctions: {
    waitMs: 0,
    handlers: Object.fromEntries(PLAN_CHANGE_TASKS.map((task) => [task.state, inert])),
  },
});
const world = planChangeWorld(api);

const HOUR = 3_600;

/** A paying tenant on `from` (its Stack in `<region>-a`) that confirmed a change to `to`. */
const confirmedChange = async (
  from: PlanValue,
  to: PlanValue,
  places: { a?: Partial<Record<PlanValue, number>>; b?: Partial<Record<PlanValue, number>> } = {},
  options: { unplaced?: boolean } = {},
) => {
  const region = uniqueRegion();
  await openPlaces(api, region, 3, places.a ?? {});
  if (places.b) await openPlaces(api, region, 0, places.b, `${region}-b`);
  const tenant = await api.paidNotSwept({ plan: from, region });
  // The last place of its Plan taken before the sweep saw the payment: the Stack has none.
  if (options.unplaced)
    await setCapacityTotal({ region, location: `${region}-a`, plan: from, total: 0 }, now());
  await api.sweep();
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  expect(issued.status).toBe(201);
  const confirmed = await world.confirm(tenant, to);
  expect(confirmed.status).toBe(202);
  const changeId = confirmed.json.changeId as string;
  return { tenant, region, changeId, credential: issued.json.credential as string };
};
type Confirmed = Awaited<ReturnType<typeof confirmedChange>>;

const stored = async (c: Confirmed) => {
  const change = await getPlanChange(c.tenant.tenantId, c.changeId);
  if (!change) throw new Error(`no change ${c.changeId}`);
  return change;
};
/** The Dispatcher step `step` of the change moves it on to `to` at once. */
const expectStepMovesOn = async (c: Confirmed, step: Parameters<typeof dispatcherStep>[1], to: string) => {
  const input = await inputOf(c);
  expect(await dispatcherStep(input, step, now())).toEqual({ ...input, step: to, waitSeconds: 0 });
};
/**
 * The change ended because the tenant left (its Stacks torn down with it): rolled back, never
 * cancelled, done, said why, and its one rolled-back email.
 */
const expectEndedByLeaving = async (c: Confirmed) => {
  expect(await stored(c)).toMatchObject({
    status: 'rolled_back',
    step: 'done',
    reasonCode: 'account_closing',
  });
  const emails = await outboxFor(c.changeId);
  expect(emails.map((e) => e.subject)).toEqual([
    `The Plan Change of ${(await stackOf(c)).name} was rolled back`,
  ]);
};
const stackOf = async (c: Confirmed) => {
  const stack = await getStack(c.tenant.tenantId, 'primary');
  if (!stack) throw new Error('no Stack');
  return stack;
};
/** The execution state the workflow would give the task now (its record's step, no wait). */
const inputOf = async (c: Confirmed, waitSeconds = 0) => executionOf(await stored(c), waitSeconds);
const now = () => api.clock.now();

/** What the Stack's Dispatcher reports (through its route), the operation report if any. */
const report = async (
  c: Confirmed,
  state: {
    appliedVersion: number;
    activeRuns?: number;
    health?: 'healthy' | 'unhealthy';
    operation?: {
      step: 'backup' | 'switch' | 'verify';
      outcome: 'done' | 'failed';
      reason?: string;
      addressChanged?: boolean;
    };
  },
) => {
  const { operation, ...rest } = state;
  const answer = await api.call('PUT', '/v1/dispatcher/observed-state', {
    token: c.credential,
    body: {
      activeRuns: 0,
      health: 'healthy',
      ...rest,
      ...(operation ? { operation: { id: c.changeId, ...operation } } : {}),
    },
  });
  expect(answer.status).toBe(200);
};

/** Reports the change's step version applied and no active run: the work drained. */
const drained = async (c: Confirmed, activeRuns = 0) => {
  const change = await stored(c);
  await report(c, { appliedVersion: change.stepVersion ?? 0, activeRuns });
};

/** Moves a change waiting for work through drain and backup: it is Switching. */
const toSwitching = async (c: Confirmed) => {
  await drained(c);
  expect((await drainWork(await inputOf(c), now())).step).toBe('prepare');
  await report(c, {
    appliedVersion: (await stored(c)).stepVersion ?? 0,
    operation: { step: 'backup', outcome: 'done' },
  });
  expect((await dispatcherStep(await inputOf(c), 'backup', now())).step).toBe('switch');
};

/** Moves a Switching change through switch and verify: it waits for its billing commit. */
const toCommit = async (c: Confirmed, switchReport: { addressChanged?: boolean } = {}) => {
  const version = () => stored(c).then((change) => change.stepVersion ?? 0);
  await report(c, {
    appliedVersion: await version(),
    operation: { step: 'switch', outcome: 'done', ...switchReport },
  });
  expect((await dispatcherStep(await inputOf(c), 'switch', now())).step).toBe('verify');
  await report(c, { appliedVersion: await version(), operation: { step: 'verify', outcome: 'done' } });
  expect((await dispatcherStep(await inputOf(c), 'verify', now())).step).toBe('commit_billing');
};

/** The tenant leaves: a money-back refund, seen by the sweep. */
const leaves = async (c: Confirmed) => {
  const at = now();
  await grantMoneyBack({
    slug: c.tenant.slug,
    email: `${c.tenant.login.toLowerCase()}@users.code-host.test`,
    requestedAt: at,
    now: at,
  });
  await api.sweep();
};

/** A change whose place is free only in the region's other location: FindCapacity holds it there. */
const movingChange = async () => {
  const c = await confirmedChange('plus', 'pro', { a: { pro: 0 }, b: { pro: 1 } });
  expect((await findCapacity(await inputOf(c), now())).step).toBe('drain_work');
  expect((await stored(c)).targetLocation).toBe(`${c.region}-b`);
  return c;
};

const heldBy = async (c: Confirmed) =>
  (await placesHold(c.region)).reservations.filter((r) => r.tenantId === changeHolder(c.changeId));

/** RollBack ends the change at once: rolled back for `reasonCode`, no place held any more. */
const expectRollsBack = async (c: Confirmed, reasonCode: string) => {
  expect(await rollBack(await inputOf(c), now())).toEqual({
    ...(await inputOf(c)),
    step: 'done',
    waitSeconds: 0,
  });
  expect(await stored(c)).toMatchObject({ status: 'rolled_back', reasonCode });
  expect(await heldBy(c)).toEqual([]);
};

describe('every task answers done for a change, Stack or tenant it cannot find', () => {
  it('a change id no record has', async () => {
    const c = await confirmedChange('plus', 'pro');
    const input: PlanChangeExecution = { ...(await inputOf(c, 7)), changeId: 'pc_nosuchchange' };
    const done = { ...input, step: 'done', waitSeconds: 0 };
    expect(await findCapacity({ ...input, step: 'find_capacity' }, now())).toEqual(done);
    expect(await drainWork({ ...input, step: 'drain_work' }, now())).toEqual(done);
    for (const step of ['backup', 'switch', 'verify'] as const)
      expect(await dispatcherStep(input, step, now())).toEqual(done);
    expect(await completeChange({ ...input, step: 'complete' }, now())).toEqual(done);
    expect(await rollBack({ ...input, step: 'roll_back' }, now())).toEqual(done);
  });
});

describe('FindCapacity', () => {
  it('no place: looks again after CAPACITY_LOOK_SECONDS; a place: held, Waiting for Work, admission paused', async () => {
    const c = await confirmedChange('plus', 'pro', { a: { pro: 0 } });
    expect(await stored(c)).toMatchObject({ status: 'waiting_for_capacity', step: 'find_capacity' });
    const look = await findCapacity(await inputOf(c), now());
    expect(look).toEqual({ ...(await inputOf(c)), waitSeconds: CAPACITY_LOOK_SECONDS });
    expect(await heldBy(c)).toEqual([]);

    // Not this task's change while it waits elsewhere: the record's own step, nothing written.
    await setCapacityTotal({ region: c.region, location: `${c.region}-a`, plan: 'pro', total: 1 }, now());
    const at = now();
    const found = await findCapacity({ ...(await inputOf(c)), waitSeconds: CAPACITY_LOOK_SECONDS }, at);
    expect(found).toEqual({ ...(await inputOf(c)), step: 'drain_work', waitSeconds: 0 });
    const change = await stored(c);
    const stack = await stackOf(c);
    expect(change).toMatchObject({
      status: 'waiting_for_work',
      step: 'drain_work',
      targetLocation: `${c.region}-a`,
      stepVersion: stack.desiredVersion,
    });
    expect(change.stepStartedAt).toBe(change.updatedAt);
    expect(stack.operation).toEqual({
      kind: 'plan_change',
      id: c.changeId,
      step: 'drain',
      target: { plan: 'pro', location: `${c.region}-a` },
    });
    expect(await heldBy(c)).toMatchObject([{ location: `${c.region}-a`, plan: 'pro' }]);
    // Held for 30 days from the look that found it (the change itself expires after seven).
    expect(Date.parse((await heldBy(c))[0]?.expiresAt ?? '') - at.getTime()).toBe(30 * 24 * HOUR * 1000);
    expect((await slotOf(c.region, `${c.region}-a`, 'pro'))?.total).toBe(1);

    // Called again (a retried task): the change is no longer waiting for capacity.
    expect(await findCapacity({ ...found, step: 'find_capacity' }, now())).toEqual({
      ...found,
      step: 'drain_work',
      waitSeconds: 0,
    });
    expect(await heldBy(c)).toHaveLength(1);
  });

  it('the Stack’s own location first, even where another has more free places', async () => {
    const c = await confirmedChange('plus', 'pro', { a: { pro: 0 }, b: { pro: 2 } });
    await setCapacityTotal({ region: c.region, location: `${c.region}-a`, plan: 'pro', total: 1 }, now());
    expect((await findCapacity(await inputOf(c), now())).step).toBe('drain_work');
    expect((await stored(c)).targetLocation).toBe(`${c.region}-a`);
  });

  it('the tenant left active: the change ends, why said, nothing held', async () => {
    const c = await confirmedChange('plus', 'pro', { a: { pro: 0 } });
    await leaves(c);
    const input = await inputOf(c, 900);
    expect(await findCapacity(input, now())).toEqual({ ...input, step: 'done', waitSeconds: 0 });
    await expectEndedByLeaving(c);
    expect((await stackOf(c)).openChange).toBeUndefined();
    expect(await heldBy(c)).toEqual([]);
  });

  it('seven days after confirmation the change expires, one email, even with a place free', async () => {
    const c = await confirmedChange('plus', 'pro', { a: { pro: 0 } });
    api.clock.advance(7 * 24 * HOUR - 60);
    expect((await findCapacity(await inputOf(c), now())).waitSeconds).toBe(CAPACITY_LOOK_SECONDS);
    api.clock.advance(60);
    await setCapacityTotal({ region: c.region, location: `${c.region}-a`, plan: 'pro', total: 1 }, now());
    const input = await inputOf(c);
    expect(await findCapacity(input, now())).toEqual({ ...input, step: 'done', waitSeconds: 0 });
    expect(await stored(c)).toMatchObject({
      status: 'expired',
      step: 'done',
      reasonCode: 'no_capacity_expired',
    });
    expect(await heldBy(c)).toEqual([]);
    const emails = await outboxFor(c.changeId);
    expect(emails).toHaveLength(1);
    expect(JSON.stringify(emails[0])).toContain('expired');
  });
});

describe('DrainWork', () => {
  it('not drained yet: looks again, paced; drained (the paused version applied, no run): Preparing', async () => {
    const c = await confirmedChange('plus', 'pro');
    const start = await stored(c);
    expect(start).toMatchObject({ status: 'waiting_for_work', step: 'drain_work' });
    const version = start.stepVersion ?? 0;

    // Nothing reported yet.
    expect(await drainWork(await inputOf(c, 40), now())).toEqual({
      ...(await inputOf(c)),
      waitSeconds: nextDispatcherLook(40),
    });
    // The paused version applied, one run still active.
    await report(c, { appliedVersion: version, activeRuns: 1 });
    expect(await drainWork(await inputOf(c), now())).toEqual({ ...(await inputOf(c)), waitSeconds: 10 });
    // No run, but the version before the paused one.
    await report(c, { appliedVersion: version - 1, activeRuns: 0 });
    expect((await drainWork(await inputOf(c), now())).step).toBe('drain_work');
    expect((await stored(c)).status).toBe('waiting_for_work');

    await report(c, { appliedVersion: version, activeRuns: 0 });
    const input = await inputOf(c, 20);
    expect(await drainWork(input, now())).toEqual({ ...input, step: 'prepare', waitSeconds: 0 });
    const change = await stored(c);
    const stack = await stackOf(c);
    expect(change).toMatchObject({ status: 'preparing', step: 'prepare', stepVersion: stack.desiredVersion });
    expect(change.stepStartedAt).toBe(change.updatedAt);
    expect(stack.operation).toMatchObject({ id: c.changeId, step: 'backup' });

    // Called again: not its step any more.
    expect(await drainWork({ ...input, step: 'drain_work' }, now())).toEqual({
      ...input,
      step: 'prepare',
      waitSeconds: 0,
    });
  });

  it(`work that does not drain in ${DRAIN_LIMIT_HOURS} hours rolls the change back: drain_timed_out, the held place given back`, async () => {
    const c = await confirmedChange('plus', 'pro');
    const before = await slotOf(c.region, `${c.region}-a`, 'pro');
    await drained(c, 2);
    api.clock.advance(DRAIN_LIMIT_HOURS * HOUR - 60);
    expect((await drainWork(await inputOf(c), now())).step).toBe('drain_work');
    api.clock.advance(60);
    const input = await inputOf(c, 300);
    expect(await drainWork(input, now())).toEqual({ ...input, step: 'roll_back', waitSeconds: 0 });
    expect(await stored(c)).toMatchObject({
      status: 'waiting_for_work',
      step: 'roll_back',
      reasonCode: 'drain_timed_out',
    });
    expect(await heldBy(c)).toHaveLength(1);

    const rolled = await rollBack(await inputOf(c), now());
    expect(rolled).toEqual({ ...(await inputOf(c)), step: 'done', waitSeconds: 0 });
    expect(await stored(c)).toMatchObject({
      status: 'rolled_back',
      step: 'done',
      reasonCode: 'drain_timed_out',
    });
    const stack = await stackOf(c);
    expect(stack.plan).toBe('plus');
    expect(stack.operation).toBeUndefined();
    expect(stack.openChange).toBeUndefined();
    expect(await heldBy(c)).toEqual([]);
    expect(await slotOf(c.region, `${c.region}-a`, 'pro')).toEqual(before);
    const emails = await outboxFor(c.changeId);
    expect(emails).toHaveLength(1);
    expect(JSON.stringify(emails[0])).toContain('rolled');

    // A terminal change: the roll back has nothing left to do.
    const again = { ...input, step: 'roll_back' as const, waitSeconds: 1 };
    expect(await rollBack(again, now())).toEqual({ ...again, step: 'done', waitSeconds: 0 });
    expect(await outboxFor(c.changeId)).toHaveLength(1);
  });

  it('the tenant left while the work drained: the change ends, the held place given back', async () => {
    const c = await confirmedChange('plus', 'pro');
    expect(await heldBy(c)).toHaveLength(1);
    await leaves(c);
    const input = await inputOf(c, 30);
    expect(await drainWork(input, now())).toEqual({ ...input, step: 'done', waitSeconds: 0 });
    await expectEndedByLeaving(c);
    const stack = await stackOf(c);
    expect(stack.operation).toBeUndefined();
    expect(stack.openChange).toBeUndefined();
    expect(await heldBy(c)).toEqual([]);
  });
});

describe('the Dispatcher steps', () => {
  it('backup: nothing reported for two hours rolls back backup_timed_out, no Dispatcher words', async () => {
    const c = await confirmedChange('plus', 'pro');
    await drained(c);
    await drainWork(await inputOf(c), now());
    // A task of another step: the record's own step.
    expect(await dispatcherStep({ ...(await inputOf(c)), step: 'switch' }, 'switch', now())).toEqual(
      await inputOf(c),
    );
    expect(await dispatcherStep(await inputOf(c, 160), 'backup', now())).toEqual({
      ...(await inputOf(c)),
      waitSeconds: 300,
    });
    api.clock.advance(DISPATCHER_STEP_LIMIT_HOURS * HOUR - 60);
    expect((await dispatcherStep(await inputOf(c), 'backup', now())).step).toBe('prepare');
    api.clock.advance(60);
    await expectStepMovesOn(c, 'backup', 'roll_back');
    const change = await stored(c);
    expect(change).toMatchObject({ status: 'preparing', step: 'roll_back', reasonCode: 'backup_timed_out' });
    expect(change.dispatcherReason).toBeUndefined();

    await expectRollsBack(c, 'backup_timed_out');
  });

  it('switch: a failed report rolls back switch_failed, the Dispatcher’s words kept for operators', async () => {
    const c = await confirmedChange('plus', 'pro');
    await toSwitching(c);
    expect(await stored(c)).toMatchObject({ status: 'switching', step: 'switch' });
    expect((await stackOf(c)).operation).toMatchObject({ step: 'switch' });
    await report(c, {
      appliedVersion: (await stored(c)).stepVersion ?? 0,
      operation: { step: 'switch', outcome: 'failed', reason: 'disk full on host 7' },
    });
    await expectStepMovesOn(c, 'switch', 'roll_back');
    expect(await stored(c)).toMatchObject({
      step: 'roll_back',
      reasonCode: 'switch_failed',
      dispatcherReason: 'disk full on host 7',
    });
    await expectRollsBack(c, 'switch_failed');
    expect((await stackOf(c)).plan).toBe('plus');
  });

  it('switch in the same location: the address did not change unless the Dispatcher says so', async () => {
    const same = await confirmedChange('plus', 'pro');
    await toSwitching(same);
    await toCommit(same);
    expect((await stored(same)).addressChanged).toBe(false);

    const told = await confirmedChange('plus', 'pro');
    await toSwitching(told);
    await toCommit(told, { addressChanged: true });
    expect((await stored(told)).addressChanged).toBe(true);
  });

  it('switch to another location: the address changed unless the Dispatcher says it did not', async () => {
    const moved = await movingChange();
    await toSwitching(moved);
    await toCommit(moved);
    expect((await stored(moved)).addressChanged).toBe(true);

    const kept = await movingChange();
    await toSwitching(kept);
    await toCommit(kept, { addressChanged: false });
    expect((await stored(kept)).addressChanged).toBe(false);
  });

  it('verify: done but not healthy waits; healthy moves to the billing commit', async () => {
    const c = await confirmedChange('plus', 'pro');
    await toSwitching(c);
    const version = () => stored(c).then((change) => change.stepVersion ?? 0);
    await report(c, { appliedVersion: await version(), operation: { step: 'switch', outcome: 'done' } });
    const switched = await inputOf(c, 5);
    expect(await dispatcherStep(switched, 'switch', now())).toEqual({
      ...switched,
      step: 'verify',
      waitSeconds: 0,
    });
    expect(await stored(c)).toMatchObject({ status: 'verifying', step: 'verify' });
    expect((await stackOf(c)).operation).toMatchObject({ step: 'verify' });

    await report(c, {
      appliedVersion: await version(),
      health: 'unhealthy',
      operation: { step: 'verify', outcome: 'done' },
    });
    expect(await dispatcherStep(await inputOf(c), 'verify', now())).toEqual({
      ...(await inputOf(c)),
      waitSeconds: 10,
    });
    await report(c, { appliedVersion: await version(), operation: { step: 'verify', outcome: 'done' } });
    await expectStepMovesOn(c, 'verify', 'commit_billing');
    const change = await stored(c);
    expect(change).toMatchObject({ status: 'verifying', step: 'commit_billing' });
    expect(change.healthyAt).toBe((await stackOf(c)).observed?.reportedAt);
  });
});

describe('after the billing commit', () => {
  it('a committed change is never rolled back: it completes on the new Plan at the held place, the old place given back', async () => {
    const c = await movingChange();
    await toSwitching(c);
    await toCommit(c, { addressChanged: false });
    const usedBefore = {
      plus: (await slotOf(c.region, `${c.region}-a`, 'plus'))?.used,
      pro: (await slotOf(c.region, `${c.region}-b`, 'pro'))?.used,
    };
    // Completing before the commit: not its step.
    expect(await completeChange({ ...(await inputOf(c)), step: 'complete' }, now())).toEqual(
      await inputOf(c),
    );
    const committed = await commitBillingTask(await inputOf(c));
    expect(committed.step).toBe('complete');
    expect((await stored(c)).final).toBeDefined();

    // A roll back asked of it goes to the completion.
    const asked = { ...(await inputOf(c)), step: 'roll_back' as const, waitSeconds: 3 };
    expect(await rollBack(asked, now())).toEqual({ ...asked, step: 'complete', waitSeconds: 0 });
    expect((await stored(c)).status).toBe('verifying');

    const input = await inputOf(c, 2);
    expect(await completeChange(input, now())).toEqual({ ...input, step: 'done', waitSeconds: 0 });
    expect(await stored(c)).toMatchObject({ status: 'completed', step: 'done', reasonCode: 'completed' });
    const stack = await stackOf(c);
    expect(stack).toMatchObject({ plan: 'pro', location: `${c.region}-b` });
    expect(stack.operation).toBeUndefined();
    expect(await heldBy(c)).toEqual([]);
    expect((await slotOf(c.region, `${c.region}-a`, 'plus'))?.used).toBe((usedBefore.plus ?? 0) - 1);
    expect((await slotOf(c.region, `${c.region}-b`, 'pro'))?.used).toBe((usedBefore.pro ?? 0) + 1);
    const emails = await outboxFor(c.changeId);
    expect(emails).toHaveLength(1);
    const text = JSON.stringify(emails[0]);
    expect(text).toContain(`${c.region}-b`);
    expect(text).not.toContain('IP address changed');
    expect(stack.placed).toBe(true);
  });

  it('moved and the address changed: the completion email says so', async () => {
    const c = await movingChange();
    await toSwitching(c);
    await toCommit(c);
    await commitBillingTask(await inputOf(c));
    expect((await completeChange(await inputOf(c), now())).step).toBe('done');
    const text = JSON.stringify((await outboxFor(c.changeId))[0]);
    expect(text).toContain('IP address changed');
    // And the exact adjustment the commit stored, on the next regular invoice (plus to pro: a charge).
    const { final } = await stored(c);
    expect(final?.adjustment).toBeGreaterThan(0);
    expect(text).toContain(`carries US$${((final?.adjustment ?? 0) / 100).toFixed(2)}`);
  });

  it('a Stack that never had a place: completes on the new Plan without taking one, the held place given back', async () => {
    const c = await confirmedChange('plus', 'pro', {}, { unplaced: true });
    expect((await stackOf(c)).placed).toBe(false);
    expect((await findCapacity(await inputOf(c), now())).step).toBe('drain_work');
    await toSwitching(c);
    await toCommit(c);
    await commitBillingTask(await inputOf(c));
    expect((await completeChange(await inputOf(c), now())).step).toBe('done');
    expect(await stackOf(c)).toMatchObject({ plan: 'pro', placed: false });
    expect(await heldBy(c)).toEqual([]);
    expect((await slotOf(c.region, `${c.region}-a`, 'pro'))?.used).toBe(0);
    expect((await slotOf(c.region, `${c.region}-a`, 'plus'))?.used).toBe(0);
  });
});

describe('RollBack', () => {
  it('a look for capacity that failed holds nothing: the change keeps waiting for capacity', async () => {
    const c = await confirmedChange('plus', 'pro', { a: { pro: 0 } });
    const input = { ...(await inputOf(c)), step: 'roll_back' as const, waitSeconds: 1 };
    expect(await rollBack(input, now())).toEqual({
      ...input,
      step: 'find_capacity',
      waitSeconds: CAPACITY_LOOK_SECONDS,
    });
    expect(await stored(c)).toMatchObject({ status: 'waiting_for_capacity', step: 'find_capacity' });
  });

  it('a change sent to roll back with no reason on its record ends move_failed', async () => {
    const c = await confirmedChange('plus', 'pro');
    expect((await stored(c)).reasonCode).toBeUndefined();
    const input = { ...(await inputOf(c)), step: 'roll_back' as const };
    expect(await rollBack(input, now())).toEqual({ ...input, step: 'done', waitSeconds: 0 });
    expect(await stored(c)).toMatchObject({ status: 'rolled_back', reasonCode: 'move_failed' });
    expect(await heldBy(c)).toEqual([]);
  });
});

describe('resumeOpenPlanChanges', () => {
  it('starts the execution of an open change whose start was lost, from its record', async () => {
    const arn = process.env.PLAN_CHANGE_STATE_MACHINE_ARN;
    process.env.PLAN_CHANGE_STATE_MACHINE_ARN = `${arn}-missing`;
    let c: Confirmed;
    try {
      c = await confirmedChange('plus', 'pro');
    } finally {
      process.env.PLAN_CHANGE_STATE_MACHINE_ARN = arn;
    }
    expect(api.stepFunctions.execution(c.changeId)).toBeUndefined();
    const started = await resumeOpenPlanChanges();
    expect(started).toBeGreaterThanOrEqual(1);
    const execution = await api.stepFunctions.settled(c.changeId);
    expect(JSON.parse(execution.input)).toEqual(await inputOf(c));
    expect(execution.entered.DrainWork).toBe(1);
  });
});
