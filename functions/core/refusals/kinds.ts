/**
 * What kind of refusal a code is, apart from HTTP: use cases, Step Functions tasks and ops commands
 * say the kind; the HTTP edge alone chooses the status from it (functions/http/refusal-status.ts,
 * one table). Each kind is one status there, so a code keeps the status it always had.
 */
export const REFUSAL_KINDS = [
  /** The request as sent is wrong: the words say what to fix. */
  'invalid',
  /** No session or credential, or one that is no longer valid. */
  'unauthenticated',
  /** The payment was refused (the local Checkout's declined card). */
  'payment_required',
  /** The caller may not do this. */
  'forbidden',
  /** No such thing for this caller. */
  'not_found',
  /** The state of things refuses it now. */
  'conflict',
  /** It was there and is gone for good. */
  'gone',
  /** A body that is not JSON. */
  'unsupported_media',
  /** Our defect: nothing of the request is trusted. */
  'internal',
  /** A service we call (the processor, the code host) failed or refused. */
  'upstream_failed',
  /** Try again later (`retryAfterSeconds` says when). */
  'unavailable',
] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** The kinds that are a failure on our side or a service's, not a refusal of the request (5xx at the edge). */
export const FAILURE_KINDS: ReadonlySet<RefusalKind> = new Set([
  'internal',
  'upstream_failed',
  'unavailable',
]);
