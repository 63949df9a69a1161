import * as v from 'valibot';
import { HttpError } from '../../functions/http/errors.ts';
import { httpHandler } from '../../functions/http/handler.ts';
import { hashSessionToken, newSessionToken, sessionCookie } from '../../functions/http/session-token.ts';
import { createSession } from '../../functions/store/sessions.ts';
import { signInIdentity } from '../../functions/store/users.ts';
import type { AdjustableClock } from './clock.ts';
import type { AdapterRoute } from './http-adapter.ts';

/** GitHub's login rules: 1 to 39 letters, digits or single hyphens, not starting or ending with one. */
const LoginSchema = v.pipe(
  v.string(),
  v.regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/,
    'a code-host login (letters, digits, single hyphens)',
  ),
);

/**
 * Routes that exist only in the local control plane (never in the CDK app): the clock and the
 * sign-in shortcut. They run through the same HTTP conventions as the real handlers.
 */
export const localRoutes = (clock: AdjustableClock): AdapterRoute[] => [
  {
    method: 'GET',
    path: '/_local/clock',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async ({ now }) => ({
      status: 200,
      body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds },
    })),
  },
  {
    method: 'POST',
    path: '/_local/clock/advance',
    auth: 'none',
    handler: httpHandler(
      {
        auth: 'none',
        body: v.strictObject({ seconds: v.pipe(v.number(), v.minValue(0), v.maxValue(10 * 365 * 86400)) }),
      },
      async ({ body }) => {
        const now = clock.advance(body.seconds);
        return { status: 200, body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds } };
      },
    ),
  },
  {
    method: 'POST',
    path: '/_local/sign-in',
    auth: 'none',
    handler: httpHandler(
      { auth: 'none', body: v.strictObject({ login: LoginSchema }) },
      async ({ body, now }) => {
        const user = await signInIdentity(
          { provider: 'local', subject: body.login.toLowerCase(), login: body.login },
          now,
        );
        const token = newSessionToken();
        const session = await createSession(hashSessionToken(token), user, now);
        if (!session) throw new HttpError(500, 'internal_error', 'Could not create a session.');
        return {
          status: 200,
          body: { sessionToken: token, tenantId: user.tenantId, userId: user.userId, role: user.role },
          cookies: [sessionCookie(token, new Date(session.expiresAt))],
        };
      },
    ),
  },
];
