import { describe, expect, it } from 'vitest';
import { planChangeReasonText } from '#core/tenant-reasons.ts';
import type { ChangeAmounts, PlanChange } from '#store/plan-changes.ts';
import type { StoredStack } from '#store/stacks.ts';
import type { Tenant } from '#store/tenants.ts';
import {
  endWrites,
  executionOf,
  noLongerWanted,
  planChangeView,
  statusAfter,
} from '../../functions/plan-changes/record.ts';
import { standardStack } from '../support/stack-fixture.ts';

// What a tenant reads of a Plan Change (functions/plan-changes/record.ts), field by field: the
// reason and its words, the estimate shown at confirmation and the final adjustment beside it.

const confirmedAt = '2026-11-04T00:00:00.000Z';
const healthyAt = '2026-11-04T02:00:00.000Z';
const committedAt = '2026-11-04T02:05:00.000Z';

const change = (over: Partial<PlanChange> = {}): PlanChange => ({
  changeId: 'pc_abc',
  tenantId: 't_1',
  stackId: 'stk_1',
  fromPlan: 'standard',
  toPlan: 'pro',
  status: 'completed',
  step: 'done',
  confirmedAt,
  expiresAt: '2026-11-11T00:00:00.000Z',
  updatedAt: committedAt,
  requestedBy: 'u_1',
  region: 'eu',
  fromLocation: 'eu-1a',
  history: [{ status: 'waiting_for_capacity', at: confirmedAt }],
  estimate: null,
  stepStartedAt: confirmedAt,
  commitAttempts: 0,
  version: 1,
  ...over,
});

const estimate = (over: Partial<ChangeAmounts> = {}): ChangeAmounts => ({
  currency: 'usd',
  subtotal: 833,
  discount: 0,
  tax: 0,
  total: 833,
  amountDue: 833,
  adjustment: 833,
  invoiceAt: null,
  ...over,
});

const moments = `The estimate was prorated from the confirmation (${confirmedAt}); the final adjustment is prorated from the moment the replacement was healthy`;

describe('the reason a tenant reads', () => {
  it('a completed change that was billed: completed, with its words', () => {
    const view = planChangeView(change({ final: { adjustment: 0, currency: 'usd', committedAt } }));
    expect(view.reasonCode).toBe('completed');
    expect(view.outcome).toBe(planChangeReasonText('completed'));
  });

  it('a completed change whose tenant left before the commit: completed_not_billed, with its words', () => {
    const view = planChangeView(
      change({ final: { adjustment: 0, currency: 'usd', committedAt, notBilled: 'account_closed' } }),
    );
    expect(view.reasonCode).toBe('completed_not_billed');
    expect(view.outcome).toBe(planChangeReasonText('completed_not_billed'));
    expect(view.outcome).not.toBe(planChangeReasonText('completed'));
    expect(view.final?.explanation).toBe(
      'Not billed: the account was closed before the change was committed, so this change adds nothing to any invoice.',
    );
  });

  it('a change still running has no reason and no outcome', () => {
    const view = planChangeView(change({ status: 'switching', step: 'switch' }));
    expect([view.reasonCode, view.outcome]).toEqual([null, null]);
  });
});

describe('the estimate shown at confirmation', () => {
  it('keeps the tax, the total and the lines it was confirmed with', () => {
    const lines = [
      { description: 'Remaining time on Pro', amount: 1000, discount: 0, tax: 0 },
      { description: 'Unused time on Standard', amount: -167, discount: 0, tax: 0 },
    ];
    const view = planChangeView(
      change({ estimate: estimate({ adjustmentTax: 167, adjustmentTotal: 1000, lines }) }),
    );
    expect(view.estimate).toEqual({ ...estimate(), adjustmentTax: 167, adjustmentTotal: 1000, lines });
  });

  it('shows null tax and total and no lines on a change confirmed before they were kept', () => {
    const view = planChangeView(change({ estimate: estimate() }));
    expect(view.estimate).toEqual({ ...estimate(), adjustmentTax: null, adjustmentTotal: null, lines: [] });
    expect(view.estimate?.adjustmentTax).toBeNull();
    expect(view.estimate?.adjustmentTotal).toBeNull();
  });

  it('is null when the processor could not estimate', () => {
    expect(planChangeView(change()).estimate).toBeNull();
  });
});

/** The view of a final adjustment of 900 with no tax figures, on either side (the rest per test). */
const untaxedFinal = {
  adjustment: 900,
  adjustmentTax: null,
  adjustmentTotal: null,
  currency: 'usd',
  committedAt,
  estimatedAdjustmentTax: null,
  estimatedAdjustmentTotal: null,
  totalDifference: null,
};

describe('the final adjustment beside the estimate', () => {
  it('gives the estimate, the difference (final - estimate) and why they differ', () => {
    const view = planChangeView(
      change({ estimate: estimate(), healthyAt, final: { adjustment: 900, currency: 'usd', committedAt } }),
    );
    expect(view.final).toEqual({
      ...untaxedFinal,
      estimatedAdjustment: 833,
      difference: 67,
      explanation: `${moments} (${healthyAt}): the time between them, and any change of the subscription or its prices meanwhile, make the difference.`,
    });
  });

  it('gives the three final figures (after discount, tax, total) beside the estimate’s, each difference, and why the tax differs', () => {
    const view = planChangeView(
      change({
        estimate: estimate({ adjustmentTax: 158, adjustmentTotal: 991 }),
        healthyAt,
        final: { adjustment: 900, adjustmentTax: 171, adjustmentTotal: 1071, currency: 'usd', committedAt },
      }),
    );
    expect(view.final).toMatchObject({
      adjustment: 900,
      adjustmentTax: 171,
      adjustmentTotal: 1071,
      estimatedAdjustment: 833,
      estimatedAdjustmentTax: 158,
      estimatedAdjustmentTotal: 991,
      difference: 67,
      totalDifference: 80,
    });
    expect(view.final?.explanation).toMatch(/^The estimate was prorated from the confirmation/);
    expect(view.final?.explanation).toMatch(
      /Its tax differs from the estimate’s because the payment processor taxes each of these lines of the next invoice after its discount/,
    );
    const same = planChangeView(
      change({
        estimate: estimate({ adjustmentTax: 171, adjustmentTotal: 1004 }),
        healthyAt,
        final: { adjustment: 833, adjustmentTax: 171, adjustmentTotal: 1004, currency: 'usd', committedAt },
      }),
    );
    expect(same.final?.totalDifference).toBe(0);
    expect(same.final?.explanation).toBe(
      'The final adjustment equals the estimate. Its tax equals the estimate’s: the payment processor taxes each of these lines of the next invoice after its discount, rounded to the cent.',
    );
  });

  it('a final below the estimate: a negative difference', () => {
    const view = planChangeView(
      change({ estimate: estimate(), healthyAt, final: { adjustment: 800, currency: 'usd', committedAt } }),
    );
    expect(view.final?.difference).toBe(-33);
  });

  it('without a recorded healthy moment, explains from the commit moment', () => {
    const view = planChangeView(
      change({ estimate: estimate(), final: { adjustment: 900, currency: 'usd', committedAt } }),
    );
    expect(view.final?.explanation).toBe(
      `${moments} (${committedAt}): the time between them, and any change of the subscription or its prices meanwhile, make the difference.`,
    );
  });

  it('within the time the lines explain: the estimate lines set the rounding allowance', () => {
    // A 30-day period, confirmed 27 days before its end; healthy one second later: time explains
    // nothing, so only the rounding of each line may (2 lines, one discounted: 4 cents).
    const period = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
    const later = '2026-11-04T00:00:01.000Z';
    const lines = [
      { description: 'Remaining time on Pro', amount: 1000, discount: 100, tax: 0 },
      { description: 'Unused time on Standard', amount: -67, discount: 0, tax: 0 },
    ];
    const final = { adjustment: 837, currency: 'usd', committedAt: later, period };
    const withLines = planChangeView(change({ estimate: estimate({ lines }), healthyAt: later, final }));
    expect(withLines.final?.explanation).toBe(
      `${moments} (${later}); they differ by the rounding of each line to the cent.`,
    );
    const withoutLines = planChangeView(change({ estimate: estimate(), healthyAt: later, final }));
    expect(withoutLines.final?.explanation).toContain('they differ by more than that time explains');
  });

  it('without an estimate: no estimated adjustment, no difference, the exact adjustment', () => {
    const view = planChangeView(
      change({ healthyAt, final: { adjustment: 900, currency: 'usd', committedAt } }),
    );
    expect(view.final).toEqual({
      ...untaxedFinal,
      estimatedAdjustment: null,
      difference: null,
      explanation:
        'The payment processor could not estimate the change at confirmation; this is the exact adjustment.',
    });
  });

  it('is null before the billing commit', () => {
    expect(
      planChangeView(change({ status: 'verifying', step: 'verify', estimate: estimate() })).final,
    ).toBeNull();
  });
});

describe('the execution that resumes a change', () => {
  it('an ended change resumes at done whatever step its record kept', () => {
    expect(executionOf(change({ status: 'cancelled', step: 'prepare' }), 5)).toEqual({
      changeId: 'pc_abc',
      tenantId: 't_1',
      expiresAt: '2026-11-11T00:00:00.000Z',
      step: 'done',
      waitSeconds: 5,
    });
  });

  it('a running change resumes at its step', () => {
    expect(executionOf(change({ status: 'preparing', step: 'prepare' })).step).toBe('prepare');
  });
});

describe('the status an event moves a change to', () => {
  it('moves by the status machine', () => {
    expect(statusAfter(change({ status: 'preparing', step: 'prepare' }), { type: 'backup_done' })).toBe(
      'switching',
    );
  });

  it('an event that does not move the change is a fault, named with the status and the event', () => {
    expect(() => statusAfter(change({ status: 'completed' }), { type: 'cancel' })).toThrow(
      'a completed Plan Change does not move on cancel',
    );
    expect(() =>
      statusAfter(change({ status: 'preparing', step: 'prepare' }), { type: 'capacity_found' }),
    ).toThrow('a preparing Plan Change does not move on capacity_found');
  });
});

describe('ending a change', () => {
  const stack = standardStack() as StoredStack;

  it('an event that moves the change on without ending it writes nothing: a fault naming both', () => {
    const waiting = change({ status: 'waiting_for_capacity', step: 'find_capacity' });
    expect(() =>
      endWrites({
        change: waiting,
        stack,
        event: { type: 'capacity_found' },
        reason: 'cancelled',
        now: new Date(0),
      }),
    ).toThrow('capacity_found does not end a waiting_for_capacity Plan Change');
  });

  it('why a waiting change can no longer go on: the tenant leaving first, then the Stack, then billing', () => {
    const as = (billingState: Tenant['billingState']) => ({ billingState }) as Tenant;
    const torn = { ...stack, lifecycle: 'torn_down' } as StoredStack;
    expect(noLongerWanted(as('active'), torn)).toBe('stack_teardown');
    expect(noLongerWanted(as('active'), stack)).toBeUndefined();
    expect(noLongerWanted(as('decommissioning'), torn)).toBe('account_closing');
    expect(noLongerWanted(as('decommissioning'), stack)).toBe('account_closing');
    expect(noLongerWanted(as('past-due'), stack)).toBe('billing_overdue');
    expect(noLongerWanted(as('suspended'), stack)).toBe('billing_overdue');
    expect(noLongerWanted(as('past-due'), torn)).toBe('stack_teardown');
    expect(noLongerWanted(as('provisioning'), stack)).toBe('billing_not_active');
  });
});
