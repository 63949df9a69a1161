/**
 * When a processor event whose effect could not be stored is received again. Most such failures
 * pass in moments (a transaction that lost to another on the same tenant, a throttled write), so
 * the first retry comes after 2 s and each later one waits four times as long, never longer than
 * the queue's own visibility timeout. Five receives without a delete dead-letter the event; the
 * tenant loses nothing by that, since the sweep's daily re-check reads the processor itself.
 */
export const INTAKE_RETRY_FIRST_SECONDS = 2;

/** Seconds until an event is received again after its `receives`-th receive failed (1 for the first). */
export const intakeRetrySeconds = (receives: number, visibilityTimeoutSeconds: number): number => {
  // A missing or nonsensical count reads as a first receive; 2 s * 4^10 is past any visibility
  // timeout SQS allows (12 hours), so no larger power is needed.
  const exponent = Number.isFinite(receives) && receives >= 1 ? Math.min(Math.floor(receives) - 1, 10) : 0;
  return Math.min(INTAKE_RETRY_FIRST_SECONDS * 4 ** exponent, visibilityTimeoutSeconds);
};
