/**
 * The error shape of every 4xx/5xx (DESIGN §7):
 *   { "error": { "code", "message", "field"?, "requestId" }, ...extra }
 * `extra` carries the fields the spec names at top level (e.g. `reason`, `availablePlans`).
 */
export class HttpError extends Error {
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
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
  }
}

export const badRequest = (code: string, message: string, field?: string): HttpError =>
  new HttpError(400, code, message, field === undefined ? {} : { field });

export const errorBody = (error: HttpError, requestId: string) => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.field === undefined ? {} : { field: error.field }),
    requestId,
  },
  ...error.extra,
});
