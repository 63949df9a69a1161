/**
 * What a request with an Idempotency-Key does when the key is already claimed (pure; time is data
 * compared with the Clock's `now`, never read here). As Powertools' idempotency does with its
 * in-progress expiry: a claim whose request has not finished is held only until that request's
 * function would have timed out; past that, the request died, and the next one with the key takes
 * the claim over (with what the dead one decided, if it recorded a decision).
 */

export type ClaimVerdict =
  /** The first request finished: answer what it answered. */
  | 'replay'
  /** The key came with another request body. */
  | 'reused'
  /** The first request may still be running: repeat later. */
  | 'in_progress'
  /** The first request ended without finishing (it died, or answered and left its decision): carry on. */
  | 'take_over';

export const claimVerdict = (
  existing: { fingerprint: string; state: 'pending' | 'done'; inProgressUntil: string },
  fingerprint: string,
  now: Date,
): ClaimVerdict => {
  if (existing.fingerprint !== fingerprint) return 'reused';
  if (existing.state === 'done') return 'replay';
  return now.getTime() < Date.parse(existing.inProgressUntil) ? 'in_progress' : 'take_over';
};

/** Until when a claim made at `claimedAt` is held for its request: the request's time to run. */
export const inProgressUntil = (claimedAt: Date, functionTimeoutSeconds: number): Date =>
  new Date(claimedAt.getTime() + functionTimeoutSeconds * 1000);
