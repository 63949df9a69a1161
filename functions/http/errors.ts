/**
 * The error shape of every 4xx/5xx (DESIGN §7):
 *   { "error": { "code", "message", "field"?, "apiHint"?, "requestId" }, ...extra }
 * `extra` carries the fields the spec names at top level (e.g. `reason`, `availablePlans`).
 */
import * as v from 'valibot';
import { Refusal } from '#core/refusal.ts';

/** The HTTP layer's name for a refusal: one class, so use cases can refuse without importing HTTP. */
export const HttpError = Refusal;
export type HttpError = Refusal;

/**
 * The body of every refusal, as valibot reads it: the document's `Error` schema is made from it
 * (lib/openapi/generate.ts), and test/unit/errors.test.ts holds `errorBody` to it.
 */
export const ErrorBodySchema = v.looseObject({
  error: v.object({
    code: v.string(),
    message: v.pipe(v.string(), v.description('What to fix.')),
    field: v.optional(v.pipe(v.string(), v.description('The offending field, dotted path.'))),
    apiHint: v.optional(
      v.pipe(
        v.string(),
        v.description(
          'For developers: the API call(s) that fix it (`DELETE /v1/stacks/{stackId}/projects/{projectId}`), kept out of `message`, which is written for a person in the console.',
        ),
      ),
    ),
    requestId: v.string(),
  }),
});

export const errorBody = (error: HttpError, requestId: string) => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.field === undefined ? {} : { field: error.field }),
    ...(error.apiHint === undefined ? {} : { apiHint: error.apiHint }),
    requestId,
  },
  ...error.extra,
});

/**
 * The headers a refusal adds to the JSON ones: `Retry-After` (whole seconds) when it says when to
 * try again (`retryAfterSeconds`, e.g. 503 `subscription_busy`), so clients and proxies that read
 * only the header wait as long as the body says.
 */
export const errorHeaders = (error: HttpError): Record<string, string> => {
  const after = error.extra.retryAfterSeconds;
  return typeof after === 'number' && Number.isFinite(after) && after > 0
    ? { 'retry-after': String(Math.ceil(after)) }
    : {};
};
