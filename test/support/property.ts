/**
 * Property runs whose verdict never depends on the machine's speed: a fixed number of runs, no
 * time limit, and shrinking bounded by a number of runs instead of a time.
 */

/**
 * Wraps a fast-check property so that, after its first failure, at most `runs` more candidates
 * are really run while fast-check shrinks; every later candidate counts as passing, so fast-check
 * stops and reports the smallest failure found by then.
 */
export const shrinkingWithin = (runs: number) => {
  let failed = false;
  let tried = 0;
  return <A extends unknown[], R>(property: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | true> => {
      if (failed && tried++ >= runs) return true;
      try {
        const result = await property(...args);
        if (result === false) failed = true;
        return result;
      } catch (error) {
        failed = true;
        throw error;
      }
    };
};

/**
 * A test's time-out for a property of `runs` runs: a guard against a hang, never a verdict on
 * speed (it allows each run `perRunMs`, many times what one takes on a busy 2-core machine).
 */
export const propertyTimeout = (runs: number, perRunMs: number) => runs * perRunMs + 60_000;
