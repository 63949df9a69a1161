import { AsyncLocalStorage } from 'node:async_hooks';
import { PROCESSOR_REQUEST_BUDGET_MS } from '../config.ts';

/**
 * The time a caller gives its processor requests (no Stripe SDK here: a use case that only sets a
 * deadline does not load it).
 */

/** A single processor request never waits longer than this. */
const REQUEST_TIMEOUT_MS = 8000;
/** Below this much time left before the caller's deadline, no new request is started. */
export const MIN_REQUEST_MS = 1000;

const deadlines = new AsyncLocalStorage<number>();

/**
 * Runs `work` with one deadline (a `performance.now()` value) for all the processor requests it
 * makes: each request's timeout and retries are chosen from the time left, so a request handler
 * answers before its Lambda timeout however many calls it makes.
 */
export const withProcessorDeadline = <T>(deadline: number, work: () => Promise<T>): Promise<T> =>
  deadlines.run(deadline, work);

/** Runs `work` within one API request's processor budget (PROCESSOR_REQUEST_BUDGET_MS from now). */
export const withRequestProcessorBudget = <T>(work: () => Promise<T>): Promise<T> =>
  withProcessorDeadline(performance.now() + PROCESSOR_REQUEST_BUDGET_MS, work);

/** Milliseconds left before the current processor deadline (undefined: none is set). */
export const processorTimeLeftMs = (): number | undefined => {
  const deadline = deadlines.getStore();
  return deadline === undefined ? undefined : deadline - performance.now();
};

/** Timeout and retries for the next request, from the time left before the deadline (if any). */
export const requestBudget = (
  timeLeftMs: number | undefined,
): { timeout: number; maxNetworkRetries: number } | undefined => {
  if (timeLeftMs === undefined) return { timeout: REQUEST_TIMEOUT_MS, maxNetworkRetries: 2 };
  if (timeLeftMs < MIN_REQUEST_MS) return undefined;
  const timeout = Math.min(REQUEST_TIMEOUT_MS, Math.floor(timeLeftMs / 2));
  // A retry is allowed only when a whole second attempt still fits.
  return { timeout, maxNetworkRetries: timeLeftMs >= 2 * timeout + 500 ? 1 : 0 };
};
