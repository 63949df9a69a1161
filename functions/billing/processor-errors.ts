import { Refusal } from '#core/refusal.ts';
import { ProcessorError } from '#ports/processor.ts';

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
