import { describe, expect, it } from 'vitest';
import {
  cancellationReason,
  earliest,
  isLiveSubscription,
  nextCheckAt,
  nextTransition,
  type ProcessorTruth,
  SUBSCRIPTION_STATUSES,
  settle,
  teardownTime,
} from '#core/lifecycle.ts';
import { at, state, t0 } from '../support/lifecycle-days.ts';

// The edges of the lifecycle's rules that tests/unit/lifecycle.test.ts leaves open: each case here
// fails when one comparison or one reason of functions/core/lifecycle.ts changes.

describe('a live subscription', () => {
  it('is every status but canceled and incomplete_expired', () => {
    const live = SUBSCRIPTION_STATUSES.filter(isLiveSubscription);
    expect(live).toEqual(['incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused']);
  });
});

describe('the reason of a cancellation', () => {
  it('a cancel scheduled by us (not a refund) is not the tenant cancelling in the portal', () => {
    expect(
      cancellationReason({
        status: 'active',
        cancelScheduled: true,
        endedReason: null,
        cancelledByUs: 'account_closed',
      }),
    ).toBe('cancelled_by_operator');
  });
});

describe('every transition says why', () => {
  it('provisioning -> active: checkout completed', () => {
    expect(nextTransition(state('provisioning'), 'covered', t0)).toEqual({
      from: 'provisioning',
      to: 'active',
      reason: 'checkout_completed',
      graceDeadline: null,
    });
  });

  it('past-due -> suspended: the past-due grace elapsed; suspended -> decommissioning: the suspended grace', () => {
    expect(nextTransition(state('past-due', at(7)), 'payment_failed', at(7))?.reason).toBe(
      'past_due_grace_elapsed',
    );
    expect(nextTransition(state('suspended', at(21)), 'payment_failed', at(21))?.reason).toBe(
      'suspended_grace_elapsed',
    );
  });
});

describe('a money-back refund ends the subscription', () => {
  const refund = { cancelReason: 'refund_granted' as const };

  it('of an active, past-due or suspended tenant at once', () => {
    for (const from of ['active', 'past-due', 'suspended'] as const)
      expect(
        settle(state(from, from === 'active' ? null : at(7)), 'cancelled', t0, refund).transitions,
      ).toEqual([{ from, to: 'decommissioning', reason: 'refund_granted', graceDeadline: null }]);
  });

  it('but never moves a decommissioning tenant again, nor a provisioning one (it has nothing to refund)', () => {
    expect(settle(state('decommissioning'), 'cancelled', t0, refund).transitions).toEqual([]);
    expect(settle(state('provisioning'), 'cancelled', t0, refund).transitions).toEqual([]);
  });

  it('only when the processor says the subscription is cancelled', () => {
    const truths: ProcessorTruth[] = ['covered', 'payment_failed', 'none'];
    for (const truth of truths) {
      const transition = nextTransition(state('active'), truth, t0, refund);
      expect(transition?.reason, truth).not.toBe('refund_granted');
    }
    expect(nextTransition(state('active'), 'payment_failed', t0, refund)?.to).toBe('past-due');
  });
});

describe('when the sweep looks again', () => {
  it('without a time of the look: only at the end of a running grace', () => {
    expect(nextCheckAt(state('active'))).toBeNull();
    expect(nextCheckAt(state('provisioning'), undefined, { hasCustomer: true })).toBeNull();
    expect(nextCheckAt(state('past-due', at(7)))).toBe(at(7).toISOString());
  });

  it('never by itself for a decommissioning tenant (its close-out schedules it)', () => {
    expect(nextCheckAt(state('decommissioning'), t0, { hasCustomer: true })).toBeNull();
  });

  it('the earlier of two times, whichever comes first, and none when none is given', () => {
    const a = at(2).toISOString();
    const b = at(1).toISOString();
    expect(earliest(a, b)).toBe(b);
    expect(earliest(b, a)).toBe(b);
    expect(earliest(null, a, undefined)).toBe(a);
    expect(earliest(null, undefined)).toBeNull();
    expect(earliest()).toBeNull();
  });
});

describe('teardown after a portal cancel', () => {
  it('waits for the end of the paid period only while it is still ahead', () => {
    const exportWindow = { teardownAt: at(7).toISOString(), admissionOpen: false };
    // The paid period ends now or has ended: the export window applies.
    for (const paidThrough of [t0, at(-3)])
      expect(
        teardownTime({
          reason: 'cancelled_in_portal',
          now: t0,
          paidThrough: paidThrough.toISOString(),
          exportWindowDays: 7,
        }),
      ).toEqual(exportWindow);
    expect(
      teardownTime({ reason: 'cancelled_in_portal', now: t0, paidThrough: null, exportWindowDays: 7 }),
    ).toEqual(exportWindow);
    // One millisecond ahead: the tenant keeps its Stacks until then.
    const ahead = new Date(t0.getTime() + 1).toISOString();
    expect(
      teardownTime({ reason: 'cancelled_in_portal', now: t0, paidThrough: ahead, exportWindowDays: 7 }),
    ).toEqual({ teardownAt: ahead, admissionOpen: true });
  });

  it('the export window is counted in days from now', () => {
    expect(
      teardownTime({ reason: 'refund_granted', now: t0, paidThrough: null, exportWindowDays: 3 }).teardownAt,
    ).toBe(at(3).toISOString());
  });
});
