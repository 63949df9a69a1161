import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyPlanChangeEvent,
  confirmRefusals,
  isCancellable,
  type PlanChangeEvent,
  type PlanChangeStatus,
  startingStatus,
} from '#core/plan-change.ts';

const confirmedAt = '2026-03-01T00:00:00.000Z';
const at = (days: number) => new Date(Date.parse(confirmedAt) + days * 86_400_000);
const step = (status: PlanChangeStatus, event: PlanChangeEvent) =>
  applyPlanChangeEvent({ status, confirmedAt }, event);

const base = {
  billingState: 'active' as const,
  subscriptionActive: true,
  cancelScheduled: false,
  stackLifecycle: 'running' as const,
  currentPlan: 'plus' as const,
  requestedPlan: 'pro' as const,
  openChanges: [] as PlanChangeStatus[],
};

describe('confirming a Plan Change: refusals', () => {
  it('none for an active tenant changing a running Stack to another Plan', () => {
    expect(confirmRefusals(base)).toEqual([]);
  });

  it.each([
    [{ billingState: 'past-due' as const }, 'billing_overdue'],
    [{ billingState: 'suspended' as const }, 'billing_overdue'],
    [{ cancelScheduled: true }, 'cancellation_scheduled'],
    [
      { billingState: 'decommissioning' as const, stackLifecycle: 'decommissioning' as const },
      'account_closing',
    ],
    [{ subscriptionActive: false }, 'subscription_not_active'],
    [{ requestedPlan: 'plus' as const }, 'plan_unchanged'],
    [{ openChanges: ['preparing' as const] }, 'operation_in_progress'],
    [{ openChanges: ['waiting_for_work' as const] }, 'operation_in_progress'],
  ])('%o is refused with %s', (change, refusal) => {
    expect(confirmRefusals({ ...base, ...change })).toContain(refusal);
  });

  it('a scheduled cancellation is named first, before and after the sweep moved the tenant (never account_closing for it)', () => {
    expect(confirmRefusals({ ...base, cancelScheduled: true })[0]).toBe('cancellation_scheduled');
    const swept = confirmRefusals({
      ...base,
      billingState: 'decommissioning',
      stackLifecycle: 'decommissioning',
      cancelScheduled: true,
    });
    expect(swept[0]).toBe('cancellation_scheduled');
    expect(swept).not.toContain('account_closing');
    // Closing for another cause (a refund, the suspended grace elapsed): the closing is the cause.
    expect(confirmRefusals({ ...base, billingState: 'decommissioning' })[0]).toBe('account_closing');
  });

  it('the processor not reporting the subscription active refuses, even while our state says active', () => {
    expect(confirmRefusals({ ...base, subscriptionActive: false })).toEqual(['subscription_not_active']);
  });

  it('a change still waiting for capacity is no obstacle (the new one supersedes it); missing capacity is no refusal', () => {
    expect(confirmRefusals({ ...base, openChanges: ['waiting_for_capacity'] })).toEqual([]);
    expect(startingStatus(false)).toBe('waiting_for_capacity');
    expect(startingStatus(true)).toBe('waiting_for_work');
  });
});

describe('the Plan Change statuses', () => {
  it('progresses Waiting for Capacity -> Waiting for Work -> Preparing -> Switching -> Verifying -> completed', () => {
    let status: PlanChangeStatus = 'waiting_for_capacity';
    for (const type of [
      'capacity_found',
      'work_drained',
      'backup_done',
      'switched',
      'healthy_and_billed',
    ] as const)
      status = step(status, { type });
    expect(status).toBe('completed');
  });

  it('cancel is allowed while waiting (capacity or work); Preparing closes the window', () => {
    expect(step('waiting_for_capacity', { type: 'cancel' })).toBe('cancelled');
    expect(step('waiting_for_work', { type: 'cancel' })).toBe('cancelled');
    for (const status of ['preparing', 'switching', 'verifying'] as const) {
      expect(isCancellable(status)).toBe(false);
      expect(step(status, { type: 'cancel' })).toBe(status);
    }
  });

  it('a queued change expires 7 days after confirmation; one past Waiting for Capacity never expires', () => {
    expect(step('waiting_for_capacity', { type: 'clock', now: at(6.99) })).toBe('waiting_for_capacity');
    expect(step('waiting_for_capacity', { type: 'clock', now: at(7) })).toBe('expired');
    expect(step('waiting_for_work', { type: 'clock', now: at(30) })).toBe('waiting_for_work');
  });

  it('only a queued change is superseded', () => {
    expect(step('waiting_for_capacity', { type: 'superseded' })).toBe('superseded');
    expect(step('waiting_for_work', { type: 'superseded' })).toBe('waiting_for_work');
  });

  it('any failure before the billing commit rolls back; a tenant leaving active rolls a waiting change back, never cancels it', () => {
    for (const status of ['waiting_for_work', 'preparing', 'switching', 'verifying'] as const)
      expect(step(status, { type: 'failed' })).toBe('rolled_back');
    expect(step('waiting_for_capacity', { type: 'tenant_left_active' })).toBe('rolled_back');
    expect(step('waiting_for_work', { type: 'tenant_left_active' })).toBe('rolled_back');
    expect(step('switching', { type: 'tenant_left_active' })).toBe('switching');
  });

  it('an ended change stays ended, whatever arrives', () => {
    for (const status of ['completed', 'rolled_back', 'expired', 'superseded', 'cancelled'] as const)
      for (const type of ['cancel', 'failed', 'capacity_found', 'healthy_and_billed'] as const)
        expect(step(status, { type })).toBe(status);
  });
});

/** A small oracle written differently: a list of the progression and a few exits. */
const PROGRESSION = [
  'waiting_for_capacity',
  'waiting_for_work',
  'preparing',
  'switching',
  'verifying',
  'completed',
];
const ADVANCE_ON = ['capacity_found', 'work_drained', 'backup_done', 'switched', 'healthy_and_billed'];
const oracle = (status: string, event: PlanChangeEvent, daysSinceConfirm: number): string => {
  const index = PROGRESSION.indexOf(status);
  if (index < 0 || status === 'completed') return status;
  const waiting = index <= 1;
  if (event.type === 'clock') return index === 0 && daysSinceConfirm >= 7 ? 'expired' : status;
  if (event.type === 'cancel') return waiting ? 'cancelled' : status;
  if (event.type === 'tenant_left_active') return waiting ? 'rolled_back' : status;
  if (event.type === 'superseded') return index === 0 ? 'superseded' : status;
  if (event.type === 'failed') return index >= 1 ? 'rolled_back' : status;
  return ADVANCE_ON[index] === event.type ? (PROGRESSION[index + 1] as string) : status;
};

describe('property: random events and clock jumps agree with the oracle', () => {
  it('for any sequence', () => {
    const event = fc.oneof(
      fc.constantFrom<PlanChangeEvent>(
        { type: 'capacity_found' },
        { type: 'work_drained' },
        { type: 'backup_done' },
        { type: 'switched' },
        { type: 'healthy_and_billed' },
        { type: 'failed' },
        { type: 'cancel' },
        { type: 'superseded' },
        { type: 'tenant_left_active' },
      ),
      fc.double({ min: 0, max: 10, noNaN: true }).map((days) => ({ type: 'clock' as const, now: at(days) })),
    );
    fc.assert(
      fc.property(fc.boolean(), fc.array(event, { maxLength: 20 }), (room, events) => {
        let status: PlanChangeStatus = startingStatus(room);
        let expected: string = room ? 'waiting_for_work' : 'waiting_for_capacity';
        for (const e of events) {
          const days = e.type === 'clock' ? (e.now.getTime() - Date.parse(confirmedAt)) / 86_400_000 : 0;
          status = step(status, e);
          expected = oracle(expected, e, days);
          expect(status).toBe(expected);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
