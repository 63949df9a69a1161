import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RECONCILE_BACKOFF_BASE_MS,
  RECONCILE_BACKOFF_CAP_MS,
  reconcileBackoffMs,
  reconcileRetryAt,
} from '#core/reconcile-backoff.ts';

describe('reconcile backoff: 30 s doubling to a cap of 1 h', () => {
  it('waits 30 s after the first failure and doubles with each failure after it', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(reconcileBackoffMs)).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000,
    ]);
  });

  it('never waits more than an hour, however many failures', () => {
    expect(reconcileBackoffMs(8)).toBe(RECONCILE_BACKOFF_CAP_MS);
    expect(reconcileBackoffMs(1_000_000)).toBe(RECONCILE_BACKOFF_CAP_MS);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (failures) => {
        const delay = reconcileBackoffMs(failures);
        expect(delay).toBeGreaterThanOrEqual(RECONCILE_BACKOFF_BASE_MS);
        expect(delay).toBeLessThanOrEqual(RECONCILE_BACKOFF_CAP_MS);
        expect(reconcileBackoffMs(failures + 1)).toBeGreaterThanOrEqual(delay);
      }),
    );
  });

  it('treats a missing or nonsensical count as a first failure', () => {
    expect(reconcileBackoffMs(0)).toBe(RECONCILE_BACKOFF_BASE_MS);
    expect(reconcileBackoffMs(Number.NaN)).toBe(RECONCILE_BACKOFF_BASE_MS);
  });

  it('answers the retry time from the now it is given', () => {
    const now = new Date('2026-06-01T12:00:00.000Z');
    expect(reconcileRetryAt(3, now).toISOString()).toBe('2026-06-01T12:02:00.000Z');
  });
});
