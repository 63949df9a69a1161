/**
 * How often the Plan Change workflow looks (docs/plan-changes.md, "Pacing"). Pure constants: the
 * tasks return them as `waitSeconds`, the bench simulates with the same values.
 */

/** Seconds between two looks for capacity: about 3 state transitions a look, ~2,000 over 7 days. */
export const CAPACITY_LOOK_SECONDS = 900;

/** The first wait before looking at the Dispatcher again (work draining, replacement being built). */
export const DISPATCHER_LOOK_SECONDS = 10;

/** The longest wait between two looks at the Dispatcher. */
export const DISPATCHER_LOOK_MAX_SECONDS = 300;

/**
 * The wait before the next look at the Dispatcher: the first look after `DISPATCHER_LOOK_SECONDS`,
 * then twice the previous wait, never more than `DISPATCHER_LOOK_MAX_SECONDS`.
 */
export const nextDispatcherLook = (previousSeconds: number): number => {
  if (!Number.isFinite(previousSeconds) || previousSeconds < DISPATCHER_LOOK_SECONDS)
    return DISPATCHER_LOOK_SECONDS;
  return Math.min(previousSeconds * 2, DISPATCHER_LOOK_MAX_SECONDS);
};
