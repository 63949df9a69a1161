/**
 * The error shape of every 4xx/5xx (DESIGN §7):
 *   { "error": { "code", "message", "field"?, "apiHint"?, "requestId" }, ...extra }
 * `extra` carries the fields the spec names at top level (e.g. `reason`, `availablePlans`).
 */
import * as v from 'valibot';
import type { Refusal } from '#core/refusal.ts';

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
  // The facts some refusals add at the top level, beside `error` (each named where the code raises it).
  retryAfterSeconds: v.optional(
    v.pipe(
      v.number(),
      v.description('Seconds to wait before sending the request again (also `Retry-After`).'),
    ),
  ),
  teardownAt: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        '`account_closing`, `cancellation_scheduled`: when the Stacks are torn down (null until known).',
      ),
    ),
  ),
  reason: v.optional(v.pipe(v.string(), v.description('Why, in one of our words (e.g. `no_capacity`).'))),
  availablePlans: v.optional(
    v.pipe(v.array(v.string()), v.description('`no_capacity`: the Plans that have a free place now.')),
  ),
  stackCap: v.optional(
    v.pipe(v.number(), v.description('`stack_cap_reached`: the most Stacks a tenant may run.')),
  ),
  watchedProjectsCap: v.optional(
    v.pipe(v.number(), v.description('The most watched projects this Stack may have.')),
  ),
  gatesNotReady: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description('`plan_changes_unavailable`: the release gates that are down.'),
    ),
  ),
  exportId: v.optional(
    v.pipe(v.nullable(v.string()), v.description('The export already running (the one to wait for).')),
  ),
  slug: v.optional(v.pipe(v.string(), v.description('`slug_locked`: the slug this tenant already locked.'))),
  newAccountFrom: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        '`new_account_not_yet`: from when a new account may be started (null while a close is carried out).',
      ),
    ),
  ),
});

export const errorBody = (error: Refusal, requestId: string) => ({
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
export const errorHeaders = (error: Refusal): Record<string, string> => {
  const after = error.extra.retryAfterSeconds;
  return typeof after === 'number' && Number.isFinite(after) && after > 0
    ? { 'retry-after': String(Math.ceil(after)) }
    : {};
};
