/**
 * A refused request, as the use cases say it: an HTTP status, a stable code, a message that says
 * what to do, and the extra top-level fields the spec names (e.g. `reason`, `availablePlans`).
 * The HTTP layer renders it (functions/http/errors.ts calls it HttpError); use cases, Step Functions
 * tasks and ops commands throw it without depending on the HTTP layer.
 */
export class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly extra: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { field?: string; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'Refusal';
    this.status = status;
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
  }
}

/** The same Idempotency-Key with another request body. */
export const idempotencyKeyReused = (): Refusal =>
  new Refusal(
    409,
    'idempotency_key_reused',
    'This Idempotency-Key was used with another request body: use a new key for a new request.',
  );

/** The first request with this Idempotency-Key has not finished yet. */
export const requestInProgress = (): Refusal =>
  new Refusal(409, 'request_in_progress', 'This request is being handled: repeat it in a few seconds.');
