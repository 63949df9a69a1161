import type { Refusal } from '../refusal.ts';
import { catalog, refuserOf } from './catalog.ts';

/** The refusals every area may answer: the Idempotency-Key protocol and a fault a retry clears. */
export const commonRefusals = catalog({
  /** The same Idempotency-Key with another request body. */
  idempotency_key_reused: {
    kind: 'conflict',
    words: 'This Idempotency-Key was used with another request body: use a new key for a new request.',
  },
  /** The first request with this Idempotency-Key has not finished yet. */
  request_in_progress: {
    kind: 'conflict',
    words: 'This request is being handled: repeat it in a few seconds.',
  },
  /** A fault a retry clears met the request, and its write did not happen (`tryAgain`). */
  temporarily_busy: {
    kind: 'unavailable',
    words: (facts: { cause: string; retry: string }) =>
      `${facts.cause}, so this request was not saved. ${facts.retry}`,
  },
});

const refuse = refuserOf(commonRefusals);

/** The same Idempotency-Key with another request body. */
export const idempotencyKeyReused = (): Refusal => refuse('idempotency_key_reused');

/** The first request with this Idempotency-Key has not finished yet. */
export const requestInProgress = (): Refusal => refuse('request_in_progress');

/**
 * A table fault that a retry clears: two writers met on one item in a transaction (DynamoDB's
 * TransactionConflict), or the table throttled us past the SDK's own retries. functions/store
 * tells them from the SDK's errors (`tableFaultOf`); the HTTP edge answers them with `tryAgain`.
 */
export type RetryableFault = 'table_transaction_conflict' | 'table_throttled';

/** Seconds a client waits before retrying each fault (also the `Retry-After` header). */
export const RETRY_AFTER_SECONDS: Record<RetryableFault, number> = {
  table_transaction_conflict: 1,
  table_throttled: 2,
};

const TRY_AGAIN_CAUSE: Record<RetryableFault, string> = {
  table_transaction_conflict: 'Another change to the same records was being saved at the same moment',
  table_throttled: 'We are saving more changes than we can take at this moment',
};

/**
 * `temporarily_busy`: the request met a fault a retry clears, and its write did not happen (a
 * cancelled transaction or a throttled write applies nothing). `retry` says how to send it again
 * when that is not simply the same request (a sign-in starts again); `cause` keeps the fault for
 * the edge's log line.
 */
export const tryAgain = (
  fault: RetryableFault,
  options: { retry?: string; cause?: unknown } = {},
): Refusal => {
  const after = RETRY_AFTER_SECONDS[fault];
  const wait = `in ${after} second${after === 1 ? '' : 's'}`;
  const refusal = refuse(
    'temporarily_busy',
    {
      cause: TRY_AGAIN_CAUSE[fault],
      retry: options.retry ?? `Send it again ${wait} (with the same Idempotency-Key, if you sent one).`,
    },
    { extra: { retryAfterSeconds: after } },
  );
  // The fault itself, for the log line of the edge (never in the body).
  if (options.cause !== undefined) refusal.cause = options.cause;
  return refusal;
};
