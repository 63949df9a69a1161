import type { RefusalKind } from './refusals/kinds.ts';

/**
 * A refused request, as the use cases say it: its kind (the HTTP edge chooses the status from it,
 * functions/http/refusal-status.ts), a stable code, a message that says what to do (in the words of
 * the console; an API call named in parentheses in it goes to `apiHint` instead), and the extra
 * top-level fields the spec names (e.g. `reason`, `availablePlans`). Use cases, Step Functions
 * tasks and ops commands throw it without depending on the HTTP layer, which renders it.
 */
/** An API call named in a message, in parentheses: `(DELETE /v1/stacks/{stackId}/projects/{projectId})`. */
const API_HINT = /\s*\(((?:GET|POST|PUT|PATCH|DELETE) \/[^)]*)\)/g;

/**
 * A message and the API calls it names, apart: the message in words a person reads in the console
 * (it names the control to use), the calls for developers (the error body's `apiHint`).
 */
export const splitApiHint = (text: string): { message: string; apiHint: string | undefined } => {
  const hints = [...text.matchAll(API_HINT)].map((match) => match[1] ?? '');
  return { message: text.replace(API_HINT, ''), apiHint: hints.length ? hints.join('; ') : undefined };
};

export class Refusal extends Error {
  readonly kind: RefusalKind;
  readonly code: string;
  readonly field: string | undefined;
  readonly extra: Record<string, unknown>;
  /** The API calls the refusal's text named (`POST /v1/billing/portal`), kept apart from its message. */
  readonly apiHint: string | undefined;

  constructor(
    kind: RefusalKind,
    code: string,
    text: string,
    options: { field?: string; extra?: Record<string, unknown> } = {},
  ) {
    const { message, apiHint } = splitApiHint(text);
    super(message);
    this.name = 'Refusal';
    this.kind = kind;
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
    this.apiHint = apiHint;
  }
}

/**
 * 404 `project_not_found`: the Stack has no such Project (never registered, or removed, even
 * meanwhile). One text wherever a Project is named (a Thread, its routes, its removal).
 */
export const projectNotFound = (stackId: string, projectId: string): Refusal =>
  new Refusal(
    'not_found',
    'project_not_found',
    `This Stack has no Project "${projectId}": GET /v1/stacks/${stackId}/projects lists them.`,
  );

/** The same Idempotency-Key with another request body. */
export const idempotencyKeyReused = (): Refusal =>
  new Refusal(
    'conflict',
    'idempotency_key_reused',
    'This Idempotency-Key was used with another request body: use a new key for a new request.',
  );

/** The first request with this Idempotency-Key has not finished yet. */
export const requestInProgress = (): Refusal =>
  new Refusal(
    'conflict',
    'request_in_progress',
    'This request is being handled: repeat it in a few seconds.',
  );

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
 * 503 `temporarily_busy`: the request met a fault a retry clears, and its write did not happen
 * (a cancelled transaction or a throttled write applies nothing). `retry` says how to send it
 * again when that is not simply the same request (a sign-in starts again); `cause` keeps the fault
 * for the edge's log line.
 */
export const tryAgain = (
  fault: RetryableFault,
  options: { retry?: string; cause?: unknown } = {},
): Refusal => {
  const after = RETRY_AFTER_SECONDS[fault];
  const wait = `in ${after} second${after === 1 ? '' : 's'}`;
  const refusal = new Refusal(
    'unavailable',
    'temporarily_busy',
    `${TRY_AGAIN_CAUSE[fault]}, so this request was not saved. ${options.retry ?? `Send it again ${wait} (with the same Idempotency-Key, if you sent one).`}`,
    { extra: { retryAfterSeconds: after } },
  );
  // The fault itself, for the log line of the edge (never in the body).
  if (options.cause !== undefined) refusal.cause = options.cause;
  return refusal;
};
