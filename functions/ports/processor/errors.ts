import type { Refusal } from '#core/refusal.ts';
import { refuse } from '#core/refusals/index.ts';

/**
 * How the processor port fails, and how a failure becomes a refusal a tenant reads. Nothing here
 * loads the Stripe SDK: a module that only handles processor failures stays small.
 */

export class ProcessorError extends Error {
  /** `unavailable`: retry later; `rejected`: the processor refused the request as made. */
  readonly kind: 'unavailable' | 'rejected';
  /** True when the request never left (no time was left for it): the processor got nothing. */
  readonly notSent: boolean;
  constructor(kind: 'unavailable' | 'rejected', message: string, options: { notSent?: boolean } = {}) {
    super(message);
    this.name = 'ProcessorError';
    this.kind = kind;
    this.notSent = options.notSent ?? false;
  }
}

/**
 * THE way a processor failure becomes a refusal: 502 `processor_unavailable` (a retry may help) or
 * `processor_error` (refused as made). `then`, when given, says what the caller does next in place
 * of the tenant's "nothing was charged" (an operator's grant names the failure and runs again).
 */
export const processorRefusal = (error: ProcessorError, then?: string): Refusal =>
  refuse(
    error.kind === 'unavailable' ? 'processor_unavailable' : 'processor_error',
    then === undefined ? { nothingCharged: true } : { failure: error.message, then },
  );

/** Runs a processor call; its failures become 502s that say whether a retry may help (processorRefusal). */
export const viaProcessor = async <T>(operation: () => Promise<T>, then?: string): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ProcessorError) throw processorRefusal(error, then);
    throw error;
  }
};

/**
 * An added Stack's item change got no answer and the processor could not be read back either:
 * whether it was charged is not known yet. Nothing is created now; what the retry does is said.
 */
export const outcomeUnknown = (keyed: boolean): Refusal =>
  refuse('processor_outcome_unknown', { keyed }, { extra: { retryAfterSeconds: 30 } });
