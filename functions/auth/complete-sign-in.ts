import { START_AGAIN } from '#core/refusals/auth.ts';
import { tryAgain } from '#core/refusals/common.ts';
import { refuse } from '#core/refusals/index.ts';
import { hashSessionToken, newSessionToken } from '#core/session-token.ts';
import { isOAuthStateFresh } from '#core/sign-in.ts';
import { CodeHostError, exchangeCode, fetchAccount } from '#ports/code-host.ts';
import { tableFaultOf } from '#store/client.ts';
import { consumeOAuthState } from '#store/oauth-states.ts';
import { createSession } from '#store/sessions.ts';
import { signInIdentity } from '#store/users.ts';

/**
 * THE sign-in completion use case: checks the one-time `state` (and that this browser started
 * it), exchanges the code, creates the user and tenant on first sign-in, and opens a session.
 * Every refusal happens before anything is created.
 */
export const completeSignIn = async (params: {
  state: string | undefined;
  /** The `state` remembered in this browser's cookie. */
  browserState: string | undefined;
  code: string | undefined;
  error: string | undefined;
  now: Date;
}): Promise<{ sessionToken: string; expiresAt: string }> => {
  const { state, now } = params;
  if (!state) throw refuse('invalid_state', { what: 'The sign-in response has no state.' });
  // Consumed first: a state is good for one attempt, whatever its outcome.
  const pending = await consumeOAuthState(hashSessionToken(state));
  if (!pending) throw refuse('invalid_state', { what: 'This sign-in was already completed or is unknown.' });
  if (!isOAuthStateFresh(pending, now)) throw refuse('state_expired');
  if (params.browserState !== state)
    throw refuse('invalid_state', { what: 'This sign-in was started in another browser.' });
  if (params.error) {
    const reason =
      params.error === 'access_denied'
        ? 'You declined access on the code host.'
        : `The code host said: ${params.error}.`;
    throw refuse('sign_in_denied', { reason });
  }
  if (!params.code) throw refuse('invalid_request');
  const code = params.code;

  let account: Awaited<ReturnType<typeof fetchAccount>>;
  try {
    const accessToken = await exchangeCode({
      code,
      codeVerifier: pending.codeVerifier,
      redirectUri: pending.redirectUri,
    });
    account = await fetchAccount(accessToken);
  } catch (error) {
    if (!(error instanceof CodeHostError)) throw error;
    if (error.kind === 'unavailable') throw refuse('code_host_unavailable');
    throw refuse('code_exchange_failed', { failure: error.message });
  }
  if (!account.email) {
    throw refuse('email_unverified');
  }
  const identity = {
    provider: 'github',
    subject: account.subject,
    login: account.login,
    email: account.email,
  };
  try {
    const user = await signInIdentity(identity, now);
    const sessionToken = newSessionToken();
    const session = await createSession(hashSessionToken(sessionToken), user, now);
    return { sessionToken, expiresAt: session.expiresAt };
  } catch (error) {
    // The state is spent: a retry is a new sign-in (which finds the user, if it was created).
    const fault = tableFaultOf(error);
    if (fault) throw tryAgain(fault, { retry: START_AGAIN, cause: error });
    throw error;
  }
};
