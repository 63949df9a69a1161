import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROCESSOR_RATE_LIMITS, processorCallsPerSecond, RateLimiter } from '#ports/rate-limit.ts';

/** The largest number of starts in any window [t, t + 1 s). */
const busiestSecond = (starts: number[]): number => {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] ?? 0) < (sorted[i] ?? 0) + 1000) j++;
    most = Math.max(most, j - i);
  }
  return most;
};

describe('the rate limiter: never more than the limit in any one-second window', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets 200 simultaneous callers through at 25 per second, never above it, and near it', async () => {
    const limiter = new RateLimiter({ perSecond: 25, now: () => Date.now() });
    const started = Date.now();
    const starts: number[] = [];
    const all = Promise.all(
      Array.from({ length: 200 }, () => limiter.acquire().then(() => starts.push(Date.now() - started))),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await all;
    expect(starts).toHaveLength(200);
    expect(limiter.calls).toBe(200);
    expect(busiestSecond(starts)).toBe(25);
    // Near the limit: 200 calls at 25/s need 7 s after the first burst, and no more.
    expect(Math.max(...starts)).toBeLessThanOrEqual(7_000);
  });

  it('holds for callers arriving at random times too', async () => {
    const limiter = new RateLimiter({ perSecond: 10, now: () => Date.now() });
    const started = Date.now();
    const starts: number[] = [];
    const pending: Promise<unknown>[] = [];
    let seed = 7;
    for (let i = 0; i < 150; i++) {
      seed = (seed * 48271) % 2147483647;
      await vi.advanceTimersByTimeAsync(seed % 97);
      pending.push(limiter.acquire().then(() => starts.push(Date.now() - started)));
    }
    await vi.advanceTimersByTimeAsync(30_000);
    await Promise.all(pending);
    expect(starts).toHaveLength(150);
    expect(busiestSecond(starts)).toBeLessThanOrEqual(10);
  });

  it('does not hold a caller back while under the limit', async () => {
    const limiter = new RateLimiter({ perSecond: 5, now: () => Date.now() });
    let done = 0;
    for (let i = 0; i < 5; i++) void limiter.acquire().then(() => done++);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(5);
    void limiter.acquire().then(() => done++);
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(5);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(6);
  });
});

describe('the processor limit comes from the API key', () => {
  it('is the test-mode limit for a test key and the live-mode limit for a live key', () => {
    expect(processorCallsPerSecond('sk_test_abc', undefined)).toBe(PROCESSOR_RATE_LIMITS.test);
    expect(processorCallsPerSecond('sk_live_abc', undefined)).toBe(PROCESSOR_RATE_LIMITS.live);
    expect(PROCESSOR_RATE_LIMITS).toEqual({ test: 25, live: 100 });
  });

  it('an override in the environment wins, and a bad one says what to fix', () => {
    expect(processorCallsPerSecond('sk_live_abc', '40')).toBe(40);
    expect(() => processorCallsPerSecond('sk_test_abc', 'fast')).toThrow(/PROCESSOR_RATE_LIMIT_PER_SECOND/);
  });
});
