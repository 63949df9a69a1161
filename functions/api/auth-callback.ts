import { isOAuthStateFresh } from '#core/sign-in.ts';
import { readCookie } from '#http/cookies.ts';
import { HttpError } from '#http/errors.ts';
import { httpHandler } from '#http/handler.ts';
import { clearedOAuthStateCookie, OAUTH_STATE_COOKIE, wantsJson } from '#http/oauth.ts';
import { hashSessionToken, newSessionToken, sessionCookie } from '#http/session-token.ts';
import { CodeHostError, exchangeCode, fetchAccount } from '#ports/code-host.ts';
import { config } from '#ports/config.ts';
import { consumeOAuthState } from '#store/oauth-states.ts';
import { createSession } from '#store/sessions.ts';
import { signInIdentity } from '#store/users.ts';

const START_AGAIN = 'Start again at /v1/auth/sign-in.';

/**
 * GET /v1/auth/callback: the code host sends the browser back here. Checks the one-time `state`,
 * exchanges the code, creates the user and tenant on first sign-in, and opens a session.
 * Every refusal happens before anything is created.
 */
export const handler = httpHandler({ auth: 'none' }, async ({ query, event, headers, now }) => {
  const state = query.state;
  if (!state) throw new HttpError(400, 'invalid_state', `The sign-in response has no state. ${START_AGAIN}`);
  // Consumed first: a state is good for one attempt, whatever its outcome.
  const pending = await consumeOAuthState(hashSessionToken(state));
  if (!pending) {
    throw new HttpError(
      400,
      'invalid_state',
      `This sign-in was already completed or is unknown. ${START_AGAIN}`,
    );
  }
  if (!isOAuthStateFresh(pending, now)) {
    throw new HttpError(400, 'state_expired', `This sign-in took longer than 10 minutes. ${START_AGAIN}`);
  }
  if (readCookie(event.cookies, OAUTH_STATE_COOKIE) !== state) {
    throw new HttpError(400, 'invalid_state', `This sign-in was started in another browser. ${START_AGAIN}`);
  }
  if (query.error) {
    const reason =
      query.error === 'access_denied'
        ? 'You declined access on the code host.'
        : `The code host said: ${query.error}.`;
    throw new HttpError(403, 'sign_in_denied', `${reason} ${START_AGAIN}`);
  }
  if (!query.code)
    throw new HttpError(400, 'invalid_request', `The sign-in response has no code. ${START_AGAIN}`);

  let account: Awaited<ReturnType<typeof fetchAccount>>;
  try {
    const accessToken = await exchangeCode({
      code: query.code,
      codeVerifier: pending.codeVerifier,
      redirectUri: pending.redirectUri,
    });
    account = await fetchAccount(accessToken);
  } catch (error) {
    if (!(error instanceof CodeHostError)) throw error;
    if (error.kind === 'unavailable') {
      throw new HttpError(
        502,
        'code_host_unavailable',
        `The code host did not answer; try again shortly. ${START_AGAIN}`,
      );
    }
    throw new HttpError(
      400,
      'code_exchange_failed',
      `The code host refused the sign-in (${error.message}). ${START_AGAIN}`,
    );
  }
  if (!account.email) {
    throw new HttpError(
      400,
      'email_unverified',
      'Your code-host account has no verified primary email address: verify it there, then sign in again.',
    );
  }

  const user = await signInIdentity(
    { provider: 'github', subject: account.subject, login: account.login, email: account.email },
    now,
  );
  const sessionToken = newSessionToken();
  const session = await createSession(hashSessionToken(sessionToken), user, now);
  const cookies = [sessionCookie(sessionToken, new Date(session.expiresAt)), clearedOAuthStateCookie()];
  if (wantsJson(headers)) return { status: 200, body: { sessionToken }, cookies };
  return { status: 302, headers: { location: config.tenantAppUrl() }, cookies };
});
