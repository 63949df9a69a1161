import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTAKE_RETRY_FIRST_SECONDS, intakeRetrySeconds } from '#core/intake-retry.ts';

const CLOUD_TIMEOUT = 120;

describe('intake retry: 2 s, four times longer each failure, never past the queue timeout', () => {
  it('an event that failed once is received again after 2 s, then 8 s, 32 s, then the timeout', () => {
    expect([1, 2, 3, 4, 5].map((receives) => intakeRetrySeconds(receives, CLOUD_TIMEOUT))).toEqual([
      2, 8, 32, 120, 120,
    ]);
    expect(INTAKE_RETRY_FIRST_SECONDS).toBe(2);
  });

  it('never waits longer than the queue would by itself, and never shorter as failures add up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 43_200 }),
        (receives, timeout) => {
          const wait = intakeRetrySeconds(receives, timeout);
          expect(wait).toBeLessThanOrEqual(timeout);
          expect(wait).toBeGreaterThanOrEqual(Math.min(INTAKE_RETRY_FIRST_SECONDS, timeout));
          expect(intakeRetrySeconds(receives + 1, timeout)).toBeGreaterThanOrEqual(wait);
        },
      ),
    );
  });

  it('treats a missing or nonsensical receive count as a first receive', () => {
    for (const receives of [0, -3, Number.NaN, Number.POSITIVE_INFINITY])
      expect(intakeRetrySeconds(receives, CLOUD_TIMEOUT)).toBe(2);
    expect(intakeRetrySeconds(0, 1)).toBe(1);
  });

  it('still waits more than a few minutes in all before the fifth failure dead-letters an event (cloud timeout)', () => {
    const total = [1, 2, 3, 4, 5].reduce(
      (sum, receives) => sum + intakeRetrySeconds(receives, CLOUD_TIMEOUT),
      0,
    );
    expect(total).toBe(282);
  });
});
