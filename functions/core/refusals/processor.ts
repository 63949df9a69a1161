import { catalog } from './catalog.ts';

/**
 * What a processor failure's words name: nothing (a tenant is told nothing was charged), or the
 * failure and what the caller does next (an operator's grant: run it again).
 */
export type ProcessorFailure = { nothingCharged: true } | { failure: string; then: string };

/**
 * The refusals of the processor port: how a processor failure reads to a tenant (or to an operator,
 * whose `then` says what to do next in place of "nothing was charged").
 */
export const processorRefusals = catalog({
  /** The processor did not answer: a retry may help. */
  processor_unavailable: {
    kind: 'upstream_failed',
    words: (facts: ProcessorFailure) =>
      !('then' in facts)
        ? 'The payment processor did not answer; nothing was charged. Try again in a moment.'
        : `The payment processor did not answer (${facts.failure}). ${facts.then}`,
  },
  /** The processor refused the request as made. */
  processor_error: {
    kind: 'upstream_failed',
    words: (facts: ProcessorFailure) =>
      !('then' in facts)
        ? 'The payment processor refused the request; nothing was charged. Contact support if this persists.'
        : `The payment processor refused a request (${facts.failure}). ${facts.then}`,
  },
  /** An added Stack's item change got no answer, nor could it be read back: whether it was charged is unknown. */
  processor_outcome_unknown: {
    kind: 'unavailable',
    words: (facts: { keyed: boolean }) =>
      facts.keyed
        ? 'The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. Retry with the same Idempotency-Key: the retry creates the Stack if it was charged, and adds it (charged once) if it was not.'
        : 'The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. If it was charged, the charge is taken back automatically (a credit on the next invoice). Try again, with an Idempotency-Key so that a retry is safe.',
  },
});
