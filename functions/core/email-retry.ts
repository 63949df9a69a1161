/**
 * How the outbox treats an email SES did not confirm: it waits before the next attempt (1 minute
 * after the first failure, doubling, never more than an hour), and after `EMAIL_MAX_ATTEMPTS`
 * attempts it is parked as `failed` for an operator (`npm run ops -- outbox retry <key>` gives it
 * as many attempts again). The eight attempts span about two hours (1+2+4+8+16+32+60 minutes of
 * waiting): an SES outage of that length heals by itself, a refusal that never changes (the SES
 * sandbox refusing an unverified recipient) stops costing a send a minute.
 */
export const EMAIL_MAX_ATTEMPTS = 8;
export const EMAIL_RETRY_BASE_MS = 60_000;
export const EMAIL_RETRY_CAP_MS = 3_600_000;

/** The wait after the `attempt`-th attempt failed (1 for the first). */
export const emailRetryDelayMs = (attempt: number): number => {
  if (!Number.isFinite(attempt) || attempt < 1) return EMAIL_RETRY_BASE_MS;
  // 2^6 minutes is past the cap already.
  const exponent = Math.min(Math.floor(attempt) - 1, 7);
  return Math.min(EMAIL_RETRY_BASE_MS * 2 ** exponent, EMAIL_RETRY_CAP_MS);
};

/**
 * What becomes of an email whose `attempt`-th attempt (of `attemptLimit`) failed at `now`. An
 * operator's retry raises the limit by another round of `EMAIL_MAX_ATTEMPTS`, and the backoff
 * starts again from a minute within that round.
 */
export const afterFailedAttempt = (
  attempt: number,
  attemptLimit: number,
  now: Date,
): { park: true } | { park: false; retryAt: Date } => {
  if (attempt >= attemptLimit) return { park: true };
  const inRound = attempt - (attemptLimit - EMAIL_MAX_ATTEMPTS);
  return { park: false, retryAt: new Date(now.getTime() + emailRetryDelayMs(inRound)) };
};
