import * as v from 'valibot';
import { EFFORTS } from '#core/credentials.ts';
import { httpHandler } from '#http/handler.ts';
import { startGuideSession } from '../credentials/guide-session.ts';

/** POST /v1/dispatcher/guide-sessions: a Guide Session on the Stack's Guide Credential only. */
export const handler = httpHandler(
  {
    auth: 'dispatcher',
    body: v.strictObject({
      threadId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, '1 to 64 letters, digits, "_" and "-"')),
      model: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
      effort: v.optional(v.picklist(EFFORTS)),
    }),
  },
  async ({ principal, body, now }) => ({
    status: 200,
    body: await startGuideSession({ ...principal, ...body, now }),
  }),
);
