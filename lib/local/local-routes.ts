import * as v from 'valibot';
import { HttpError } from '../../functions/http/errors.ts';
import { httpHandler } from '../../functions/http/handler.ts';
import { hashSessionToken, newSessionToken, sessionCookie } from '../../functions/http/session-token.ts';
import { createSession } from '../../functions/store/sessions.ts';
import { addMember, type CodeHostIdentity, signInIdentity } from '../../functions/store/users.ts';
import type { AdjustableClock } from './clock.ts';
import { accountEmail, LOGIN_PATTERN } from './code-host.ts';
import type { AdapterRoute } from './http-adapter.ts';
import type { LocalSweeper } from './sweeper.ts';

const MAX_ADVANCE_SECONDS = 10 * 365 * 86400;

const LoginSchema = v.pipe(
  v.string('a code-host login'),
  v.regex(LOGIN_PATTERN, 'a code-host login (letters, digits, single hyphens)'),
);

/**
 * The local sign-in's identities: the login, case-insensitively, is the account, with the address
 * the code-host stand-in reports for the same login.
 */
const localIdentity = (login: string): CodeHostIdentity => ({
  provider: 'local',
  subject: login.toLowerCase(),
  login,
  email: accountEmail(login),
});

/**
 * Routes that exist only in the local control plane (never in the CDK app): the clock, a sweep
 * on demand, the sign-in shortcut and adding members. They run through the same HTTP conventions as the real handlers.
 */
export const localRoutes = (clock: AdjustableClock, sweeper: LocalSweeper): AdapterRoute[] => [
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
        body: v.strictObject({
          seconds: v.pipe(
            v.number('a whole number of seconds'),
            v.integer('a whole number of seconds'),
            v.minValue(0, 'a whole number of seconds, 0 or more (time never goes back)'),
            v.maxValue(MAX_ADVANCE_SECONDS, `at most ${MAX_ADVANCE_SECONDS} seconds (ten years)`),
          ),
        }),
      },
      async ({ body }) => {
        const now = clock.advance(body.seconds);
        return { status: 200, body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds } };
      },
    ),
  },
  {
    method: 'POST',
    path: '/_local/sweep',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async () => ({ status: 200, body: await sweeper.runNow() })),
  },
  {
    method: 'POST',
    path: '/_local/members',
    auth: 'session',
    handler: httpHandler(
      { auth: 'session', role: 'administrator', body: v.strictObject({ login: LoginSchema }) },
      async ({ body, principal, now }) => {
        const added = await addMember(principal.tenantId, localIdentity(body.login), now);
        if (!added)
          throw new HttpError(
            409,
            'login_taken',
            `"${body.login}" already belongs to a user; choose another login.`,
          );
        return { status: 201, body: { userId: added.userId, login: body.login, role: 'member' } };
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
        const user = await signInIdentity(localIdentity(body.login), now);
        const token = newSessionToken();
        const session = await createSession(hashSessionToken(token), user, now);
        return {
          status: 200,
          body: { sessionToken: token, tenantId: user.tenantId, userId: user.userId, role: user.role },
          cookies: [sessionCookie(token, new Date(session.expiresAt))],
        };
      },
    ),
  },
];
