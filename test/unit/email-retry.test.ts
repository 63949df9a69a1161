import { describe, expect, it } from 'vitest';
import {
  afterFailedAttempt,
  EMAIL_MAX_ATTEMPTS,
  EMAIL_RETRY_BASE_MS,
  EMAIL_RETRY_CAP_MS,
  emailRetryDelayMs,
} from '#core/email-retry.ts';

const at = new Date('2030-01-01T00:00:00.000Z');

describe('email retry: 1 minute doubling to 1 hour, parked after the last attempt', () => {
  it('waits a minute after the first failed attempt and doubles after each one, up to an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(emailRetryDelayMs)).toEqual([
      60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
    expect(emailRetryDelayMs(0)).toBe(EMAIL_RETRY_BASE_MS);
    expect(emailRetryDelayMs(Number.NaN)).toBe(EMAIL_RETRY_BASE_MS);
    expect(emailRetryDelayMs(1e9)).toBe(EMAIL_RETRY_CAP_MS);
  });

  it('a failed attempt below the limit is retried after its delay; the last one parks the email', () => {
    expect(afterFailedAttempt(1, EMAIL_MAX_ATTEMPTS, at)).toEqual({
      park: false,
      retryAt: new Date(at.getTime() + 60_000),
    });
    expect(afterFailedAttempt(EMAIL_MAX_ATTEMPTS - 1, EMAIL_MAX_ATTEMPTS, at)).toEqual({
      park: false,
      retryAt: new Date(at.getTime() + 3_600_000),
    });
    expect(afterFailedAttempt(EMAIL_MAX_ATTEMPTS, EMAIL_MAX_ATTEMPTS, at)).toEqual({ park: true });
    // After an operator's retry the limit is the attempts so far plus another round.
    // After an operator's retry (limit 16), the backoff starts again from a minute.
    expect(afterFailedAttempt(9, 16, at)).toEqual({ park: false, retryAt: new Date(at.getTime() + 60_000) });
    expect(afterFailedAttempt(16, 16, at)).toEqual({ park: true });
  });

  it('eight attempts span about two hours of waiting: an SES outage of that length heals by itself', () => {
    const waited = Array.from({ length: EMAIL_MAX_ATTEMPTS - 1 }, (_, i) => emailRetryDelayMs(i + 1)).reduce(
      (sum, ms) => sum + ms,
      0,
    );
    expect(EMAIL_MAX_ATTEMPTS).toBe(8);
    expect(waited).toBe((1 + 2 + 4 + 8 + 16 + 32 + 60) * 60_000);
  });
});
