import { describe, expect, it } from 'vitest';
import {
  adjustmentExplanation,
  expiryOf,
  isCancellable,
  PLAN_CHANGE_STATUSES,
  prorationMoment,
  recoveryMessage,
  roundingTolerance,
  timeTolerance,
} from '#core/plan-change.ts';
import { PLANS } from '#core/plans.ts';
import { renderDesiredState } from '#core/stacks.ts';
import { moreSpecific } from '../../lib/local/http-adapter.ts';
import { standardStack } from '../support/stack-fixture.ts';

const stack = standardStack();

describe('a Plan Change in the desired state', () => {
  it('pauses admission and carries the step with the replacement Plan', () => {
    const desired = renderDesiredState({
      ...stack,
      operation: {
        kind: 'plan_change',
        id: 'pc_1',
        step: 'switch',
        target: { plan: 'pro', location: 'eu-2a' },
      },
    });
    expect(desired.admission).toBe('paused');
    expect(desired.plan).toBe('standard');
    expect(desired.operation).toEqual({
      id: 'pc_1',
      kind: 'plan_change',
      step: 'switch',
      target: { plan: 'pro', location: 'eu-2a', resources: PLANS.pro.resources, run_cap: PLANS.pro.runCap },
    });
  });

  it('keeps admission open without an operation, and closed after a teardown', () => {
    expect(renderDesiredState(stack).admission).toBe('open');
    expect(renderDesiredState(stack).operation).toBeUndefined();
    const torn = renderDesiredState({
      ...stack,
      lifecycle: 'torn_down',
      operation: {
        kind: 'plan_change',
        id: 'pc_1',
        step: 'drain',
        target: { plan: 'pro', location: 'eu-1a' },
      },
    });
    expect(torn.admission).toBe('closed');
    expect(torn.operation).toBeUndefined();
  });
});

describe('the recovery message of each status', () => {
  it('says what the tenant can do, and offers a cancel only while the change waits', () => {
    for (const status of PLAN_CHANGE_STATUSES) {
      const message = recoveryMessage(status);
      expect(message.length).toBeGreaterThan(20);
      expect(/cancel it|still cancel/.test(message)).toBe(isCancellable(status));
    }
  });
});

describe('the final adjustment beside the estimate', () => {
  const times = { confirmedAt: '2026-11-01T00:00:00.000Z', healthyAt: '2026-11-01T02:00:00.000Z' };
  // A 30-day period; confirmed with 27 days left; a $10 monthly difference estimates 900 cents.
  const period = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
  const confirmedAt = '2026-11-04T00:00:00.000Z';
  const dayLater = '2026-11-05T00:00:00.000Z';
  it('says they are equal when they are', () => {
    expect(adjustmentExplanation({ estimate: 1200, final: 1200, ...times })).toBe(
      'The final adjustment equals the estimate.',
    );
  });
  it('within |new - old| x elapsed / period plus rounding, a smaller final figure is the later proration moment', () => {
    // A day later: 1000 x 26/30 = 867; the tolerance is 1000 x 1/30 + 2 = 35.3 cents.
    const upgrade = { estimate: 900, final: 867, confirmedAt, healthyAt: dayLater, period };
    expect(adjustmentExplanation(upgrade)).toContain(
      'so fewer days of the billing period remained to prorate',
    );
    expect(adjustmentExplanation({ ...upgrade, estimate: -900, final: -867 })).toContain('fewer days');
  });
  it('within the tolerance, a final figure no smaller than the estimate is rounding', () => {
    const oneMinute = '2026-11-04T00:01:00.000Z';
    const explained = adjustmentExplanation({
      estimate: 900,
      final: 901,
      confirmedAt,
      healthyAt: oneMinute,
      period,
    });
    expect(explained).toContain('rounding of each line to the cent');
    expect(explained).not.toContain('fewer days');
  });
  it('beyond the tolerance, the subscription or its prices changed meanwhile, even for a smaller final figure', () => {
    for (const final of [500, 830, 1700]) {
      const explained = adjustmentExplanation({
        estimate: 900,
        final,
        confirmedAt,
        healthyAt: dayLater,
        period,
      });
      expect(explained).toContain('the subscription or its prices changed meanwhile');
      expect(explained).not.toContain('fewer days');
    }
  });
  it('a new billing period between the confirmation and the healthy moment is said as such', () => {
    const explained = adjustmentExplanation({
      estimate: 100,
      final: 900,
      confirmedAt: '2026-10-29T00:00:00.000Z',
      healthyAt: '2026-11-04T00:00:00.000Z',
      period,
    });
    expect(explained).toContain('in a new billing period (from 2026-11-01T00:00:00.000Z)');
    expect(explained).not.toContain('changed meanwhile');
  });
  it('a renewal after the healthy moment: billed from the start of the new period, the renewal having billed the old Plan', () => {
    const explained = adjustmentExplanation({
      estimate: 50,
      final: 1000,
      confirmedAt: '2026-10-29T00:00:00.000Z',
      healthyAt: '2026-10-31T20:00:00.000Z',
      proratedFrom: period.start,
      period,
    });
    expect(explained).toMatch(
      /^Billed from the start of the new billing period \(2026-11-01T00:00:00.000Z\): the replacement was healthy at 2026-10-31T20:00:00.000Z, before the subscription renewed/,
    );
    expect(explained).toContain('the renewal invoice billed the previous Plan for the whole new period');
  });
  it('under a discount each line rounds twice (its amount and its discount): a few cents more are rounding', () => {
    const oneMinute = '2026-11-04T00:01:00.000Z';
    const discounted = [{ discount: -417 }, { discount: 500 }];
    const change = { estimate: 450, final: 454, confirmedAt, healthyAt: oneMinute, period };
    expect(adjustmentExplanation({ ...change, estimateLines: discounted })).toContain(
      'rounding of each line to the cent',
    );
    // Without a discount two lines round to two cents at most: four is more than time explains.
    expect(adjustmentExplanation({ ...change, estimateLines: [{ discount: 0 }, { discount: 0 }] })).toContain(
      'changed meanwhile',
    );
    expect(adjustmentExplanation(change)).toContain('changed meanwhile');
  });
  it('without the billing period (a change committed before it was kept) it claims no single cause', () => {
    const explained = adjustmentExplanation({ estimate: 1200, final: 1190, ...times });
    expect(explained).toContain('the time between them, and any change of the subscription or its prices');
    expect(explained).not.toContain('fewer days');
  });
  it('says when there was no estimate', () => {
    expect(adjustmentExplanation({ estimate: null, final: 5, ...times })).toContain('could not estimate');
  });
  it('says nothing was billed when the account closed before the commit, whatever the estimate', () => {
    expect(
      adjustmentExplanation({ estimate: 1200, final: 0, ...times, notBilled: 'account_closed' }),
    ).toMatch(/^Not billed: the account was closed before the change was committed/);
  });
});

describe('the moment a billing commit prorates from', () => {
  const period = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
  it('is the healthy moment while it lies in the current billing period', () => {
    expect(prorationMoment('2026-11-04T10:00:00.000Z', period)).toBe('2026-11-04T10:00:00.000Z');
    expect(prorationMoment(period.start, period)).toBe(period.start);
  });
  it('is the start of the current period when the subscription renewed after the healthy moment', () => {
    expect(prorationMoment('2026-10-31T23:59:00.000Z', period)).toBe(period.start);
  });
  it('is the healthy moment when the processor reports no period', () => {
    expect(prorationMoment('2026-10-31T23:59:00.000Z', null)).toBe('2026-10-31T23:59:00.000Z');
  });
});

describe('the time tolerance between the estimate and the final adjustment', () => {
  it('is |new - old monthly price| x elapsed / period, plus two cents of rounding', () => {
    expect(
      timeTolerance({ monthlyDifference: -1000, elapsedSeconds: 86_400, periodSeconds: 30 * 86_400 }),
    ).toBeCloseTo(1000 / 30 + 2);
    // A 15-minute queue on a $10 difference is under a cent.
    expect(
      timeTolerance({ monthlyDifference: 1000, elapsedSeconds: 900, periodSeconds: 30 * 86_400 }),
    ).toBeLessThan(3);
    expect(timeTolerance({ monthlyDifference: 1000, elapsedSeconds: -60, periodSeconds: 30 * 86_400 })).toBe(
      2,
    );
  });
});

describe('the rounding between the estimate and the final adjustment', () => {
  it('is a cent per line, two under a discount, and never less than two cents', () => {
    expect(roundingTolerance(2, false)).toBe(2);
    expect(roundingTolerance(3, false)).toBe(3);
    expect(roundingTolerance(2, true)).toBe(4);
    expect(roundingTolerance(3, true)).toBe(6);
    expect(roundingTolerance(0, true)).toBe(2);
    expect(
      timeTolerance({ monthlyDifference: 0, elapsedSeconds: 60, periodSeconds: 30 * 86_400, rounding: 4 }),
    ).toBe(4);
  });
});

describe('a queued change expires 7 days after confirmation', () => {
  it('is a deadline in the data', () => {
    expect(expiryOf(new Date('2026-11-01T10:00:00.000Z')).toISOString()).toBe('2026-11-08T10:00:00.000Z');
  });
});

describe('local route matching, as API Gateway does', () => {
  it('prefers a literal segment over a parameter, whatever the order', () => {
    expect(moreSpecific('/v1/plan-changes/export', '/v1/plan-changes/{changeId}')).toBe(true);
    expect(moreSpecific('/v1/plan-changes/{changeId}', '/v1/plan-changes/export')).toBe(false);
  });
});
