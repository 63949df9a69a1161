/** The API version the emulator answers as (the one the stripe package pins). */
export const EMULATED_API_VERSION = '2026-10-28.endive';

/** A refusal in Stripe's error shape. */
export class StripeApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | undefined;
  readonly code: string | undefined;
  constructor(
    status: number,
    message: string,
    options: { type?: string; param?: string; code?: string } = {},
  ) {
    super(message);
    this.status = status;
    this.type = options.type ?? 'invalid_request_error';
    this.param = options.param;
    this.code = options.code;
  }
}

/** Stripe's 404 for an id it does not know. */
export const missing = (kind: string, id: string, param = 'id') =>
  new StripeApiError(404, `No such ${kind}: '${id}'`, { code: 'resource_missing', param });

/** Throws `error` where an expression is expected (`record ?? fail(missing(...))`). */
export const fail = (error: StripeApiError): never => {
  throw error;
};

/** The body of an error answer. */
export const errorBody = (error: StripeApiError) => ({
  error: {
    type: error.type,
    message: error.message,
    ...(error.param ? { param: error.param } : {}),
    ...(error.code ? { code: error.code } : {}),
  },
});
