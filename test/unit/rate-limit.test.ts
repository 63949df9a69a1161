import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AccountBudget,
  budgetShape,
  MAX_WINDOWS_AHEAD,
  PROCESSOR_RATE_LIMITS,
  type ProcessorShare,
  placesFor,
  processorAccount,
  processorCallsPerSecond,
} from '#ports/rate-limit.ts';
import { busiestSecond } from '../support/busiest-second.ts';

/** Processes sharing one account: each its own budget, all claiming slots in one shared table. */
const account = (perSecond: number, processes: number, claimMs = 3) => {
  const used = new Map<number, number>();
  const claim = async (window: number, places: number) => {
    await new Promise((resolve) => setTimeout(resolve, claimMs));
    if ((used.get(window) ?? 0) >= places) return false;
    used.set(window, (used.get(window) ?? 0) + 1);
    return true;
  };
  return Array.from(
    { length: processes },
    () => new AccountBudget({ perSecond, claim, now: () => Date.now() }),
  );
};

describe('one processor budget per account: never more than the limit in any second, whoever calls', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a sweep and two other processes calling at once stay at or under 25 a second together, and use >= 90% of it', async () => {
    const budgets = account(25, 3);
    const started = Date.now();
    const starts: number[] = [];
    const all = Promise.all(
      budgets.flatMap((budget, p) =>
        Array.from({ length: p === 0 ? 150 : 30 }, () =>
          budget.acquire(p === 0 ? 'sweep' : 'shared').then(() => starts.push(Date.now() - started)),
        ),
      ),
    );
    await vi.advanceTimersByTimeAsync(20_000);
    await all;
    expect(starts).toHaveLength(210);
    expect(busiestSecond(starts)).toBeLessThanOrEqual(25);
    // 210 calls at the full pace (24 a second) take under 9 s; at 90% of 25/s they would take 9.3 s.
    expect(Math.max(...starts)).toBeLessThan((210 / (0.9 * 25)) * 1000);
    expect(budgets.reduce((sum, budget) => sum + budget.calls, 0)).toBe(210);
  });

  it('is cut into about 24 windows a second whose places never add up to more than the limit in a second', () => {
    for (const perSecond of [2, 10, 25, 60, 100, 1000]) {
      const { places, windowsPerSecond, windowMs } = budgetShape(perSecond);
      expect(places * (windowsPerSecond + 1)).toBeLessThanOrEqual(perSecond);
      expect(windowMs * windowsPerSecond).toBeCloseTo(1000);
      // A fifth of the places, over five windows, are the sweep's alone.
      const others = [0, 1, 2, 3, 4].reduce((sum, w) => sum + placesFor(places, 'shared', w), 0);
      expect(others).toBeLessThanOrEqual(Math.floor(0.8 * 5 * places));
      expect([0, 1, 2, 3, 4].every((w) => placesFor(places, 'sweep', w) === places)).toBe(true);
    }
    expect(budgetShape(25)).toMatchObject({ places: 1, windowsPerSecond: 24 });
    expect(budgetShape(100)).toMatchObject({ places: 4, windowsPerSecond: 24 });
    // At 25 and 100 a second, a busy account gets 96% of its limit.
    expect(budgetShape(100).places * budgetShape(100).windowsPerSecond).toBe(96);
  });

  it('the sweep has its own share: the others never take its places, so it always gets a fifth (live)', async () => {
    const [sweep, api] = account(100, 2) as [AccountBudget, AccountBudget];
    const byShare: Record<ProcessorShare, number[]> = { sweep: [], shared: [] };
    const started = Date.now();
    const calls = (budget: AccountBudget, share: ProcessorShare, count: number) =>
      Array.from({ length: count }, () =>
        budget.acquire(share).then(() => byShare[share].push(Date.now() - started)),
      );
    // Others flood the account (800 calls: 10 s at their 77 a second); the sweep asks for 30 at the same time.
    const all = Promise.all([...calls(api, 'shared', 800), ...calls(sweep, 'sweep', 30)]);
    await vi.advanceTimersByTimeAsync(30_000);
    await all;
    // The sweep's 30 calls are done within ~1.6 s on its own windows (19 calls a second), not after the flood.
    expect(Math.max(...byShare.sweep)).toBeLessThan(2_500);
    expect(Math.max(...byShare.shared)).toBeGreaterThan(10_000);
    expect(busiestSecond([...byShare.sweep, ...byShare.shared])).toBeLessThanOrEqual(100);
  });

  it("a tenant's call behind a busy sweep waits a few windows, not for the sweep's queue (no process claims more than MAX_WINDOWS_AHEAD ahead)", async () => {
    const [sweep, api] = account(25, 2) as [AccountBudget, AccountBudget];
    const started = Date.now();
    // The sweep queues 300 calls (12 s of the whole account); a tenant's request comes 2 s later.
    const sweepCalls = Promise.all(Array.from({ length: 300 }, () => sweep.acquire('sweep')));
    let apiStarted = 0;
    const apiCall = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await api.acquire('shared');
      apiStarted = Date.now() - started;
    })();
    await vi.advanceTimersByTimeAsync(20_000);
    await Promise.all([sweepCalls, apiCall]);
    // Before the horizon it started after the sweep's 12 s; now within half a second of asking.
    expect(apiStarted).toBeGreaterThanOrEqual(2_000);
    expect(apiStarted).toBeLessThan(2_500);
    expect(MAX_WINDOWS_AHEAD.sweep).toBeLessThan(MAX_WINDOWS_AHEAD.shared);
  });

  it('does not hold a lone caller back', async () => {
    const [budget] = account(100, 1, 1) as [AccountBudget];
    let done = 0;
    void budget.acquire().then(() => done++);
    // Within this window, or the next when this one is the sweep's own (one in five at 4 places a
    // window; a window is 1000/24 ms): never later, whatever the clock's reading at the start.
    await vi.advanceTimersByTimeAsync(2 * (1000 / 24));
    expect(done).toBe(1);
  });

  it('a place won after its window passed is not used: the call takes a later one', async () => {
    let calls = 0;
    const budget = new AccountBudget({
      perSecond: 25,
      now: () => Date.now(),
      // The first claim comes back long after its window; the later ones at once.
      claim: async () => {
        calls++;
        if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 200));
        return true;
      },
    });
    const starts: number[] = [];
    budget.observer = (at) => starts.push(at);
    const asked = Date.now();
    void budget.acquire();
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toBe(2);
    expect(budget.lost).toBe(1);
    expect(starts).toHaveLength(1);
    expect(starts[0]).toBeGreaterThanOrEqual(asked + 200);
  });
});

describe('the processor limit comes from the API key', () => {
  it('is the test-mode limit for a test key and the live-mode limit for a live key', () => {
    expect(processorCallsPerSecond('sk_test_abc', undefined)).toBe(PROCESSOR_RATE_LIMITS.test);
    expect(processorCallsPerSecond('sk_live_abc', undefined)).toBe(PROCESSOR_RATE_LIMITS.live);
    expect(PROCESSOR_RATE_LIMITS).toEqual({ test: 25, live: 100 });
    expect(processorAccount('sk_live_abc')).toBe('live');
    expect(processorAccount('sk_test_abc')).toBe('test');
  });

  it('an override in the environment wins, and a bad one says what to fix', () => {
    expect(processorCallsPerSecond('sk_live_abc', '40')).toBe(40);
    expect(() => processorCallsPerSecond('sk_test_abc', 'fast')).toThrow(/PROCESSOR_RATE_LIMIT_PER_SECOND/);
  });
});
