/**
 * Waiting in tests: for a condition, never for a fixed time. `sleep` only paces a poll (or lets
 * real time pass where the behaviour under test is about real time); a test that must see that
 * something did NOT happen first waits for a positive signal that the code had its chance
 * (see `nextRuns` in plan-change-world.ts), then asserts.
 */

/** Resolves after `ms` milliseconds of real time. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  /** How many looks at most (a bound against a hang, not a verdict on speed). Default 400. */
  rounds?: number;
  /** Real time between looks. Default 10 ms. */
  everyMs?: number;
  /** Runs before each look (say, one Dispatcher poll). */
  step?: () => unknown;
  /** What to show when it never happens. */
  showing?: () => unknown;
}

/**
 * Looks until `probe` answers something other than `undefined` or `false`, and answers that;
 * fails with `what` (and `showing()`) after `rounds` looks.
 */
export const waitFor = async <T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> => {
  const rounds = options.rounds ?? 400;
  for (let round = 0; round < rounds; round++) {
    await options.step?.();
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await sleep(options.everyMs ?? 10);
  }
  const shown = options.showing ? `: ${JSON.stringify(await options.showing())}` : '';
  throw new Error(`${what} never happened (${rounds} looks)${shown}`);
};
