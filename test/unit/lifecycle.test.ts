import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cancellationReason,
  classifySubscription,
  nextCheckAt,
  nextTransition,
  type ProcessorTruth,
  type SubscriptionFacts,
  type SubscriptionStatus,
  settle,
  type TransitionReason,
  teardownTime,
} from '#core/lifecycle.ts';
import { at, DAY, state, t0 } from '../support/lifecycle-days.ts';
import { LifecycleOracle } from '../support/lifecycle-oracle.ts';

describe('what the processor says (documented in docs/decisions.md)', () => {
  it.each<[SubscriptionStatus, boolean, ProcessorTruth]>([
    ['active', false, 'covered'],
    ['trialing', false, 'covered'],
    ['past_due', false, 'payment_failed'],
    ['unpaid', false, 'payment_failed'],
    ['incomplete', false, 'payment_failed'],
    ['paused', false, 'payment_failed'],
    ['active', true, 'cancelled'],
    ['trialing', true, 'cancelled'],
    ['past_due', true, 'cancelled'],
    ['canceled', false, 'cancelled'],
    ['incomplete_expired', false, 'none'],
  ])('a subscription %s (cancel scheduled: %s) is %s', (status, cancelScheduled, truth) => {
    expect(classifySubscription({ status, cancelScheduled })).toBe(truth);
  });

  it.each<[Partial<SubscriptionFacts>, TransitionReason]>([
    [{ status: 'active', cancelScheduled: true }, 'cancelled_in_portal'],
    [
      { status: 'canceled', cancelScheduled: true, endedReason: 'cancellation_requested' },
      'cancelled_in_portal',
    ],
    [{ status: 'canceled', endedReason: 'cancellation_requested' }, 'cancelled_by_operator'],
    [{ status: 'canceled', endedReason: null }, 'cancelled_by_operator'],
    [{ status: 'canceled', endedReason: 'payment_failed' }, 'cancelled_after_failed_payments'],
    [{ status: 'canceled', endedReason: 'payment_disputed' }, 'cancelled_payment_disputed'],
    [
      { status: 'canceled', endedReason: 'cancellation_requested', cancelledByUs: 'refund_granted' },
      'refund_granted',
    ],
  ])('the cancellation details %o read as %s', (facts, reason) => {
    expect(
      cancellationReason({
        status: 'active',
        cancelScheduled: false,
        endedReason: null,
        cancelledByUs: null,
        ...facts,
      }),
    ).toBe(reason);
  });

  it('the past-due grace runs from the failed payment as the processor reports it', () => {
    const failedAt = new Date(t0.getTime() - 2 * DAY).toISOString();
    expect(settle(state('active'), 'payment_failed', t0, { failedAt }).state).toEqual(
      state('past-due', at(5)),
    );
    // Noticed more than 7 days late: past-due and suspended in one look, the 14 days from the 7th day.
    const longAgo = new Date(t0.getTime() - 8 * DAY).toISOString();
    expect(settle(state('active'), 'payment_failed', t0, { failedAt: longAgo }).state).toEqual(
      state('suspended', at(13)),
    );
  });

  it('a close requested by a provisioning tenant makes it decommissioning, whatever the processor says', () => {
    for (const truth of ['none', 'covered'] as const)
      expect(settle(state('provisioning'), truth, t0, { closeRequested: true }).transitions).toEqual([
        { from: 'provisioning', to: 'decommissioning', reason: 'closed_by_tenant', graceDeadline: null },
      ]);
  });

  it('an active tenant, and a provisioning one with a processor customer, is looked at again within a day', () => {
    expect(nextCheckAt(state('active'), t0)).toBe(at(1).toISOString());
    expect(nextCheckAt(state('provisioning'), t0, { hasCustomer: true })).toBe(at(1).toISOString());
    expect(nextCheckAt(state('provisioning'), t0)).toBeNull();
  });

  it('teardown: at the end of the paid period after a portal cancel, after the export window otherwise', () => {
    expect(
      teardownTime({
        reason: 'cancelled_in_portal',
        now: t0,
        paidThrough: at(20).toISOString(),
        exportWindowDays: 7,
      }),
    ).toEqual({ teardownAt: at(20).toISOString(), admissionOpen: true });
    for (const reason of ['suspended_grace_elapsed', 'refund_granted', 'cancelled_by_operator'] as const)
      expect(
        teardownTime({ reason, now: t0, paidThrough: at(20).toISOString(), exportWindowDays: 7 }),
      ).toEqual({
        teardownAt: at(7).toISOString(),
        admissionOpen: false,
      });
  });

  it('no subscription is none', () => {
    expect(classifySubscription(undefined)).toBe('none');
  });
});

describe('the tenant billing lifecycle (spec §3)', () => {
  it('provisioning -> active when the processor reports the subscription covered', () => {
    expect(settle(state('provisioning'), 'covered', t0).state).toEqual(state('active'));
    expect(settle(state('provisioning'), 'none', t0).transitions).toEqual([]);
  });

  it('active -> past-due on a payment failure, with a 7-day grace', () => {
    const { state: next, transitions } = settle(state('active'), 'payment_failed', t0);
    expect(next).toEqual(state('past-due', at(7)));
    expect(transitions).toEqual([
      { from: 'active', to: 'past-due', reason: 'payment_failed', graceDeadline: at(7).toISOString() },
    ]);
  });

  it('past-due stays past-due until the grace elapses', () => {
    expect(
      settle(state('past-due', at(7)), 'payment_failed', new Date(at(7).getTime() - 1)).transitions,
    ).toEqual([]);
  });

  it('past-due -> suspended when the 7-day grace elapses without recovery, with a 14-day grace from then', () => {
    expect(settle(state('past-due', at(7)), 'payment_failed', at(7)).state).toEqual(
      state('suspended', at(21)),
    );
  });

  it('the suspended grace runs from the end of the past-due grace, however late the sweep looks', () => {
    expect(settle(state('past-due', at(7)), 'payment_failed', at(9)).state).toEqual(
      state('suspended', at(21)),
    );
  });

  it('suspended -> decommissioning when the 14-day grace elapses', () => {
    expect(settle(state('suspended', at(21)), 'payment_failed', at(21)).state).toEqual(
      state('decommissioning'),
    );
  });

  it('a sweep that looks after both graces passes past-due, suspended and decommissioning in one go', () => {
    const { state: next, transitions } = settle(state('past-due', at(7)), 'payment_failed', at(30));
    expect(next.state).toBe('decommissioning');
    expect(transitions.map((t) => `${t.from}->${t.to}`)).toEqual([
      'past-due->suspended',
      'suspended->decommissioning',
    ]);
  });

  it.each(['past-due', 'suspended'] as const)(
    '%s -> active when the processor reports the subscription covered again',
    (from) => {
      const { state: next, transitions } = settle(state(from, at(7)), 'covered', at(8));
      expect(next).toEqual(state('active'));
      expect(transitions[0]?.reason).toBe('payment_recovered');
    },
  );

  it('active -> decommissioning when the tenant cancels in the portal', () => {
    const { state: next, transitions } = settle(state('active'), 'cancelled', t0);
    expect(next).toEqual(state('decommissioning'));
    expect(transitions[0]?.reason).toBe('cancelled_in_portal');
  });

  it('decommissioning is terminal in v1: nothing brings it back', () => {
    for (const truth of ['covered', 'payment_failed', 'cancelled', 'none'] as const) {
      expect(settle(state('decommissioning'), truth, at(100)).transitions).toEqual([]);
    }
  });

  it('the sweep looks again at the end of a running grace (not a day later)', () => {
    expect(nextCheckAt(state('past-due', at(7)), t0)).toBe(at(7).toISOString());
    expect(nextCheckAt(state('suspended', at(21)), t0)).toBe(at(21).toISOString());
    expect(nextCheckAt(state('decommissioning'), t0)).toBeNull();
  });
});

describe('property: the rules agree with the oracle for any truths and times', () => {
  it('random sequences of truths and clock jumps', () => {
    const step = fc.record({
      truth: fc.constantFrom<ProcessorTruth>('covered', 'payment_failed', 'cancelled', 'none'),
      hours: fc.nat(24 * 30),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const oracle = new LifecycleOracle();
        let current = state('provisioning');
        const history: string[] = [];
        let now = t0.getTime();
        for (const { truth, hours } of steps) {
          now += hours * 3_600_000;
          oracle.look(truth, now);
          const result = settle(current, truth, new Date(now));
          current = result.state;
          history.push(...result.transitions.map((t) => `${t.from}->${t.to}`));
        }
        expect(current.state).toBe(oracle.state);
        expect(history).toEqual(oracle.history);
      }),
      { numRuns: 500 },
    );
  });
});

describe('a money-back refund', () => {
  it('takes a past-due or suspended tenant to decommissioning at once, not at the end of its grace', () => {
    const now = new Date('2026-03-10T00:00:00.000Z');
    for (const state of ['past-due', 'suspended'] as const) {
      const deadline = '2026-03-20T00:00:00.000Z';
      expect(
        nextTransition({ state, graceDeadline: deadline }, 'cancelled', now, {
          cancelReason: 'refund_granted',
        }),
      ).toEqual({ from: state, to: 'decommissioning', reason: 'refund_granted', graceDeadline: null });
      // Another cancellation still waits for the grace.
      expect(
        nextTransition({ state, graceDeadline: deadline }, 'cancelled', now, {
          cancelReason: 'cancelled_by_operator',
        }),
      ).toBeUndefined();
    }
  });
});
