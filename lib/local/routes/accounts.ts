import * as v from 'valibot';
import { hashSessionToken, newSessionToken } from '../../../functions/core/session-token.ts';
import { httpHandler } from '../../../functions/http/handler.ts';
import { sessionCookie } from '../../../functions/http/session-token.ts';
import { createSession } from '../../../functions/store/sessions.ts';
import { addMember, type CodeHostIdentity, signInIdentity } from '../../../functions/store/users.ts';
import { accountEmail, LOGIN_PATTERN } from '../code-host.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import { refuseLocal } from '../refusals.ts';

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

/** `POST /_local/sign-in` (the sign-in shortcut) and `POST /_local/members` (an administrator adds a member). */
export const accountRoutes: AdapterRoute[] = [
  {
    method: 'POST',
    path: '/_local/members',
    auth: 'session',
    handler: httpHandler(
      { auth: 'session', role: 'administrator', body: v.strictObject({ login: LoginSchema }) },
      async ({ body, principal, now }) => {
        const added = await addMember(principal.tenantId, localIdentity(body.login), now);
        if (!added) throw refuseLocal('login_taken', { login: body.login });
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
