import { Refusal } from '#core/refusal.ts';
import { ProcessorError } from './processor.ts';

/** Runs a processor call; its failures become 502s that say whether a retry may help. */
export const viaProcessor = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof ProcessorError)) throw error;
    if (error.kind === 'unavailable') {
      throw new Refusal(
        502,
        'processor_unavailable',
        'The payment processor did not answer; nothing was charged. Try again in a moment.',
      );
    }
    throw new Refusal(
      502,
      'processor_error',
      'The payment processor refused the request; nothing was charged. Contact support if this persists.',
    );
  }
};

/**
 * An added Stack's item change got no answer and the processor could not be read back either:
 * whether it was charged is not known yet. Nothing is created now; what the retry does is said.
 */
export const outcomeUnknown = (keyed: boolean): Refusal =>
  new Refusal(
    503,
    'processor_outcome_unknown',
    keyed
      ? 'The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. Retry with the same Idempotency-Key: the retry creates the Stack if it was charged, and adds it (charged once) if it was not.'
      : 'The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. If it was charged, the charge is taken back automatically (a credit on the next invoice). Try again, with an Idempotency-Key so that a retry is safe.',
    { extra: { retryAfterSeconds: 30 } },
  );
