import { readCookie } from '#http/cookies.ts';
import { httpHandler } from '#http/handler.ts';
import { clearedOAuthStateCookie, OAUTH_STATE_COOKIE, wantsJson } from '#http/oauth.ts';
import { sessionCookie } from '#http/session-token.ts';
import { config } from '#ports/config.ts';
import { completeSignIn } from '../auth/complete-sign-in.ts';

/**
 * GET /v1/auth/callback: the code host sends the browser back here (functions/auth/complete-sign-in.ts);
 * the session goes into a cookie, and the browser on to the tenant app (or JSON when asked).
 */
export const handler = httpHandler({ auth: 'none' }, async ({ query, event, headers, now }) => {
  const { sessionToken, expiresAt } = await completeSignIn({
    state: query.state,
    browserState: readCookie(event.cookies, OAUTH_STATE_COOKIE),
    code: query.code,
    error: query.error,
    now,
  });
  const cookies = [sessionCookie(sessionToken, new Date(expiresAt)), clearedOAuthStateCookie()];
  if (wantsJson(headers)) return { status: 200, body: { sessionToken }, cookies };
  return { status: 302, headers: { location: config.tenantAppUrl() }, cookies };
});
