import { httpHandler } from '#http/handler.ts';
import { clearedSessionCookie, findSessionToken } from '#http/session-token.ts';
import { signOut } from '../auth/sessions.ts';

/** POST /v1/auth/sign-out: revokes the presented session at once (the authorizer does not cache). */
export const handler = httpHandler({ auth: 'session' }, async ({ event, now }) => {
  const presented = findSessionToken(event.headers ?? {}, event.cookies);
  if (presented) await signOut(presented.token, now);
  return { status: 204, cookies: [clearedSessionCookie()] };
});
