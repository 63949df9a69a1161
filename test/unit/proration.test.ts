import { describe, expect, it } from 'vitest';
import { adjustmentExplanation, ROUNDING_TOLERANCE, timeTolerance } from '#core/plan-change.ts';

// The proration explanation of a Plan Change's final adjustment beside its estimate, at the
// boundaries of each case (docs/plan-changes.md).

const DAY_S = 86_400;
// A 30-day billing period; 30 days are 2,592,000 seconds.
const period = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const plusSeconds = (iso: string, seconds: number) =>
  new Date(Date.parse(iso) + seconds * 1000).toISOString();

describe('the time tolerance', () => {
  it('is the rounding alone when there is no period to prorate over', () => {
    expect(timeTolerance({ monthlyDifference: 1000, elapsedSeconds: DAY_S, periodSeconds: 0 })).toBe(
      ROUNDING_TOLERANCE,
    );
    expect(timeTolerance({ monthlyDifference: 1000, elapsedSeconds: DAY_S, periodSeconds: -1 })).toBe(
      ROUNDING_TOLERANCE,
    );
  });
});

describe('the explanation', () => {
  // Confirmed at the period's start: the estimate of 1000 covers the whole period, so the monthly
  // difference is exactly 1000 and 2,592 seconds later the time explains exactly 1 cent (+ 2).
  const atStart = {
    estimate: 1000,
    confirmedAt: period.start,
    healthyAt: plusSeconds(period.start, 2592),
    period,
  };

  it('names both moments', () => {
    expect(adjustmentExplanation({ ...atStart, final: 999 })).toBe(
      `The estimate was prorated from the confirmation (${period.start}); the final adjustment is prorated from the moment the replacement was healthy (${atStart.healthyAt}), so fewer days of the billing period remained to prorate.`,
    );
  });

  it('a confirmation at the very start of the period is in that period, not a new one', () => {
    expect(adjustmentExplanation({ ...atStart, final: 999 })).not.toContain('in a new billing period');
  });

  it('a difference of exactly the tolerance is still explained by time', () => {
    expect(adjustmentExplanation({ ...atStart, final: 997 })).toContain('fewer days');
    expect(adjustmentExplanation({ ...atStart, final: 996 })).toContain('changed meanwhile');
  });

  it('a final figure as large as the estimate, of the other sign, is not fewer days', () => {
    const tiny = { ...atStart, estimate: 1, final: -1 };
    expect(adjustmentExplanation(tiny)).toContain('rounding of each line to the cent');
  });

  it('an estimate made at the very end of the period explains nothing by time (no days were left)', () => {
    const explained = adjustmentExplanation({
      estimate: 900,
      final: 899,
      confirmedAt: period.end,
      healthyAt: plusSeconds(period.end, 60),
      period,
    });
    expect(explained).toContain('differ by more than that time explains');
  });
});
