import * as v from 'valibot';
import { httpHandler } from '#http/handler.ts';
import { reportValidation } from '../credentials/validation.ts';

/** Why a Credential is invalid, in the Dispatcher's words: kept for operators only (the tenant reads our code). */
const VALIDATION_REASON_MAX_LENGTH = 500;

/** POST /v1/dispatcher/credentials/{name}/validation: the Dispatcher's verdict on the material it read. */
export const handler = httpHandler(
  {
    auth: 'dispatcher',
    body: v.strictObject({
      version: v.pipe(v.number(), v.integer(), v.minValue(1)),
      outcome: v.picklist(['valid', 'invalid']),
      reason: v.optional(
        v.pipe(
          v.string(),
          v.maxLength(
            VALIDATION_REASON_MAX_LENGTH,
            `a reason of at most ${VALIDATION_REASON_MAX_LENGTH} characters`,
          ),
        ),
      ),
    }),
  },
  async ({ principal, pathParameters, body, now }) => ({
    status: 200,
    body: await reportValidation({ ...principal, name: pathParameters.name ?? '', ...body, now }),
  }),
);
