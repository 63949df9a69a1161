import * as v from 'valibot';
import { EFFORTS, ROUTED_ACTIVITIES } from '#core/credentials.ts';
import { httpHandler } from '#http/handler.ts';
import { createThread } from '../credentials/threads.ts';

/** POST /v1/dispatcher/threads: a new Thread, bound for good to its routed Credential, model and effort. */
export const handler = httpHandler(
  {
    auth: 'dispatcher',
    body: v.strictObject({
      threadId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, "_" and "-"')),
      projectId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
      activity: v.picklist(ROUTED_ACTIVITIES),
      model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
      effort: v.optional(v.picklist(EFFORTS)),
    }),
  },
  async ({ principal, body, now }) => ({
    status: 200,
    body: await createThread({ ...principal, ...body, now }),
  }),
);
